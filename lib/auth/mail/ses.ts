import { SESv2Client, SendEmailCommand, type SESv2ClientConfig } from "@aws-sdk/client-sesv2";
import { log } from "../../core/log.ts";
import { SES_BUDGET, clientBudget } from "../../store/aws-budgets.ts";
import { traceAwsCalls } from "../../store/aws-tracing.ts";
import { loggedRecipient, withoutAddress } from "./recipient.ts";
import type { Mail, MailTransport } from "./transport.ts";

/**
 * AWS: Amazon SES v2. Only functions/auth.ts imports this file (its composition's `mail`, the
 * application's MAIL_TRANSPORT), so the SES client stays out of every other function's bundle.
 */
export class SesTransport implements MailTransport {
  private client: SESv2Client | undefined;

  constructor(
    readonly from: string,
    /** The SES client's settings (the SDK's defaults in Lambda; tests point `endpoint` elsewhere). */
    private readonly config: SESv2ClientConfig = {},
  ) {}

  async send(mail: Mail): Promise<void> {
    if (!this.client) {
      // The time budget first; a caller's own settings (a test's endpoint) on top.
      this.client = new SESv2Client({ ...clientBudget(SES_BUDGET), ...this.config });
      traceAwsCalls(this.client);
    }
    // SES names a refused recipient in its message (suppression list, sandbox): the error that
    // reaches the request's error log line says the digest instead.
    await this.client
      .send(
        new SendEmailCommand({
          FromEmailAddress: this.from,
          Destination: { ToAddresses: [mail.to] },
          Content: {
            Simple: {
              Subject: { Data: mail.subject, Charset: "UTF-8" },
              Body: { Text: { Data: mail.text, Charset: "UTF-8" }, Html: { Data: mail.html, Charset: "UTF-8" } },
            },
          },
        }),
      )
      .catch((error: unknown) => {
        throw withoutAddress(error, mail.to);
      });
    log.info("mail sent", { to: loggedRecipient(mail.to), subject: mail.subject });
  }
}

/** The mail transport of a function that sends mail through SES, from the mailer's sender address. */
export const sesTransport = (from: string): MailTransport => new SesTransport(from);
