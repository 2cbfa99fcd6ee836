import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { log } from "../../core/log.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailTransport {
  send(mail: Mail): Promise<void>;
}

/**
 * Offline and tests: each mail is a JSON file `{to, subject, text, html, sentAt}` under
 * `.data/outbox/`, named so that a listing sorts by time, and a log line carries its link.
 */
export class OutboxTransport implements MailTransport {
  constructor(readonly dir: string) {}

  async send(mail: Mail): Promise<void> {
    const sentAt = new Date().toISOString();
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, `${sentAt.replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.json`);
    await writeFile(file, `${JSON.stringify({ ...mail, sentAt }, null, 2)}\n`, { mode: 0o600 });
    log.info("mail written to the outbox", { to: mail.to, subject: mail.subject, file, link: /https?:\/\/\S+/.exec(mail.text)?.[0] });
  }
}

/** AWS: Amazon SES v2 (the client is loaded on first send, out of every cold start that sends nothing). */
export class SesTransport implements MailTransport {
  private client: Promise<{ send: (mail: Mail) => Promise<void> }> | undefined;

  constructor(readonly from: string) {}

  async send(mail: Mail): Promise<void> {
    this.client ??= import("@aws-sdk/client-sesv2").then(({ SESv2Client, SendEmailCommand }) => {
      const client = new SESv2Client({});
      return {
        send: async (m: Mail) => {
          await client.send(
            new SendEmailCommand({
              FromEmailAddress: this.from,
              Destination: { ToAddresses: [m.to] },
              Content: { Simple: { Subject: { Data: m.subject, Charset: "UTF-8" }, Body: { Text: { Data: m.text, Charset: "UTF-8" }, Html: { Data: m.html, Charset: "UTF-8" } } } },
            }),
          );
        },
      };
    });
    await (await this.client).send(mail);
    log.info("mail sent", { to: mail.to, subject: mail.subject });
  }
}
