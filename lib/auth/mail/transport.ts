import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { log } from "../../core/log.ts";
import { loggedRecipient } from "./recipient.ts";

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
 * `.data/outbox/`, named so that a listing sorts by time, and a log line carries its link (and
 * the recipient as a digest, as in every stage: the file holds the address).
 */
export class OutboxTransport implements MailTransport {
  constructor(readonly dir: string) {}

  async send(mail: Mail): Promise<void> {
    const sentAt = new Date().toISOString();
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, `${sentAt.replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.json`);
    await writeFile(file, `${JSON.stringify({ ...mail, sentAt }, null, 2)}\n`, { mode: 0o600 });
    log.info("mail written to the outbox", { to: loggedRecipient(mail.to), subject: mail.subject, file, link: /https?:\/\/\S+/.exec(mail.text)?.[0] });
  }
}
