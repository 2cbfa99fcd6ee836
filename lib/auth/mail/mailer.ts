import type { Static } from "@sinclair/typebox";
import { Type } from "../../core/schema.ts";
import { join } from "node:path";
import { isLocalOffline, localDataDir } from "../../core/local-secret.ts";
import { Service } from "../../core/service.ts";
import { countEvent } from "../../core/metrics.ts";
import { OutboxTransport, type Mail, type MailTransport } from "./transport.ts";

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
  /** Set by the functions that send mail (functions/auth.ts), keeping SES out of the other bundles. */
  private static ses: ((from: string) => MailTransport) | undefined;

  static useSes(factory: (from: string) => MailTransport): void {
    MailerService.ses = factory;
  }

  transport(): MailTransport {
    if (!this.chosen) {
      const outbox = this.options.transport === "outbox" || (this.options.transport === "auto" && isLocalOffline());
      if (outbox) this.chosen = new OutboxTransport(this.options.outbox ?? join(localDataDir(), "outbox"));
      else if (MailerService.ses) this.chosen = MailerService.ses(this.options.from);
      else throw new Error("this function cannot send mail: call MailerService.useSes(...) at its module scope (functions/auth.ts does)");
    }
    return this.chosen;
  }

  async send(mail: Mail): Promise<void> {
    await this.transport().send(mail);
    countEvent("MailsSent");
  }
}
