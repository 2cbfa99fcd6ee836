import type { Static } from "@sinclair/typebox";
import { Type } from "../../core/schema.ts";
import { join } from "node:path";
import { isLocalOffline, localDataDir } from "../../core/local-secret.ts";
import { Service } from "../../core/service.ts";
import { countEvent } from "../../core/metrics.ts";
import { Capability } from "../../core/capability.ts";
import { OutboxTransport, type Mail, type MailTransport } from "./transport.ts";

/**
 * How mail leaves outside the local outbox (SES: ./ses.ts): a capability of the function that
 * sends mail (functions/auth.ts composes it with `mail`), keeping SES out of the other bundles.
 */
export const MAIL_TRANSPORT = new Capability<(from: string) => MailTransport>(
  "mail transport",
  "compose the function that sends mail with `mail` (lib/auth/mail/ses.ts's sesTransport; functions/auth.ts does)",
);

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
      if (outbox) this.chosen = new OutboxTransport(this.options.outbox ?? join(localDataDir(), "outbox"));
      else this.chosen = this.app.requireCapability(MAIL_TRANSPORT)(this.options.from);
    }
    return this.chosen;
  }

  async send(mail: Mail): Promise<void> {
    await this.transport().send(mail);
    countEvent("MailsSent");
  }
}
