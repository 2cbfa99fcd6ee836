import { log } from "../../core/log.ts";
import { countEvent } from "../../core/metrics.ts";
import type { MailerService } from "../mail/mailer.ts";
import type { MailBudget } from "./budget.ts";
import type { EmailProviderOptions } from "./options.ts";
import { mailSource } from "./source.ts";
import type { MailKind, MailThrottle } from "./throttle.ts";

/** A mail, built only once every limit lets it go. */
export type MailBuilder = () => Promise<{ to: string; subject: string; text: string; html: string }>;

/** What a send needs of its provider: its name and limits, the rows that count, the transport. */
export interface MailLimits {
  provider: string;
  throttle: EmailProviderOptions["throttle"];
  addresses: MailThrottle;
  budget: MailBudget;
  mailer: () => MailerService | undefined;
}

/**
 * Sends one mail if every limit lets it, in order: the source's share (`mailsPerSourcePerMinute`),
 * the address's slot for this kind of mail (`resendDelay`), the service-wide budget. The share
 * counts every request, sent or refused by any limit: a stranger polling an address spends its own
 * share, and once it is spent its requests touch no address's slot at all. The address's slot and
 * the budget count only mails sent: a later refusal gives back the slot. A transport failure (ours,
 * not the caller's) gives back all three. A refusal answers the caller as a sent mail does (the
 * routes say nothing either way).
 */
export async function sendWithinLimits(limits: MailLimits, kind: MailKind, email: string, source: string | undefined, build: MailBuilder): Promise<void> {
  const { resendDelay, mailsPerMinute, mailsPerSourcePerMinute } = limits.throttle;
  const provider = limits.provider;
  const share = await limits.budget.claim(mailsPerSourcePerMinute, `mail-source:${mailSource(source)}`);
  if (!share) {
    log.info("mail source over its share: mail not sent", { provider, kind, mailsPerSourcePerMinute });
    countEvent("MailsOverSourceShare");
    return;
  }
  const address = await limits.addresses.claim(kind, email, resendDelay);
  if (!address) {
    log.info("mail throttled", { provider, kind });
    countEvent("MailsThrottled");
    return;
  }
  const budget = await limits.budget.claim(mailsPerMinute);
  if (!budget) {
    log.warn("mail budget spent: mail not sent", { provider, kind, mailsPerMinute });
    countEvent("MailBudgetSpent");
    await address.release();
    return;
  }
  const mailer = limits.mailer();
  try {
    if (!mailer) throw new Error(`service '${provider}' needs a Framework/Mailer service to send mail`);
    await mailer.send(await build());
  } catch (error) {
    await Promise.all([address.release(), share.release(), budget.release()]);
    throw error;
  }
}
