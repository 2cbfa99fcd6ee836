import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import { log } from "../../core/log.ts";
import { SES_BUDGET, clientBudget } from "../../store/aws-budgets.ts";
import { traceAwsCalls } from "../../store/aws-tracing.ts";
import type { Mail, MailTransport } from "./transport.ts";

/**
 * AWS: Amazon SES v2. Only functions/auth.ts imports this file (and registers it with
 * `MailerService.useSes`), so the SES client stays out of every other function's bundle.
 */
export class SesTransport implements MailTransport {
  private client: SESv2Client | undefined;

  constructor(readonly from: string) {}

  async send(mail: Mail): Promise<void> {
    if (!this.client) {
      this.client = new SESv2Client(clientBudget(SES_BUDGET));
      traceAwsCalls(this.client);
    }
    await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [mail.to] },
        Content: { Simple: { Subject: { Data: mail.subject, Charset: "UTF-8" }, Body: { Text: { Data: mail.text, Charset: "UTF-8" }, Html: { Data: mail.html, Charset: "UTF-8" } } } },
      }),
    );
    log.info("mail sent", { to: mail.to, subject: mail.subject });
  }
}
