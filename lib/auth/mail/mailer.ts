import { Type, type Static } from "@sinclair/typebox";
import { join } from "node:path";
import { isLocalOffline, localDataDir } from "../../core/local-secret.ts";
import { Service } from "../../core/service.ts";
import { OutboxTransport, SesTransport, type Mail, type MailTransport } from "./transport.ts";

export const mailerOptions = Type.Object({
  /** The sender address (verified in SES). */
  from: Type.String({ minLength: 3, default: "no-reply@example.com" }),
  /** `auto`: the outbox under `serverless offline`, SES everywhere else. */
  transport: Type.Union([Type.Literal("auto"), Type.Literal("ses"), Type.Literal("outbox")], { default: "auto" }),
  /** Outbox folder; `.data/outbox` by default. */
  outbox: Type.Optional(Type.String({ minLength: 1 })),
});

export type MailerOptions = Static<typeof mailerOptions>;

/** `Framework/Mailer`: sends the auth mails (verification, recovery) through SES or the local outbox. */
export class MailerService extends Service<MailerOptions> {
  static override readonly type = "Framework/Mailer";
  static override readonly options = mailerOptions;

  private chosen: MailTransport | undefined;

  transport(): MailTransport {
    if (!this.chosen) {
      const outbox = this.options.transport === "outbox" || (this.options.transport === "auto" && isLocalOffline());
      this.chosen = outbox ? new OutboxTransport(this.options.outbox ?? join(localDataDir(), "outbox")) : new SesTransport(this.options.from);
    }
    return this.chosen;
  }

  send(mail: Mail): Promise<void> {
    return this.transport().send(mail);
  }
}
