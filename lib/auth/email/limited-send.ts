import { log } from "../../core/log.ts";
import { countEvent } from "../../core/metrics.ts";
import type { MailerService } from "../mail/mailer.ts";
import type { BudgetClaim, MailBudget } from "./budget.ts";
import type { EmailProviderOptions } from "./options.ts";
import { mailSource } from "./source.ts";
import type { MailThrottle } from "./throttle.ts";

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
 * Sends one mail if every limit lets it, in order: the address's (`resendDelay`), the source's
 * share, the service-wide budget. A refusal answers the caller as a sent mail does (the routes
 * say nothing either way) and gives back what the earlier limits counted, as does a transport
 * failure: only mails actually sent count. `preclaimed`: the address's claim, already taken.
 */
export async function sendWithinLimits(
  limits: MailLimits,
  email: string,
  source: string | undefined,
  build: MailBuilder,
  preclaimed?: { claim: BudgetClaim | undefined },
): Promise<void> {
  const { resendDelay, mailsPerMinute, mailsPerSourcePerMinute } = limits.throttle;
  const provider = limits.provider;
  const address = preclaimed ? preclaimed.claim : await limits.addresses.claim(email, resendDelay);
  if (!address) {
    log.info("mail throttled", { provider });
    countEvent("MailsThrottled");
    return;
  }
  const share = await limits.budget.claim(mailsPerSourcePerMinute, `mail-source:${mailSource(source)}`);
  if (!share) {
    log.info("mail source over its share: mail not sent", { provider, mailsPerSourcePerMinute });
    countEvent("MailsOverSourceShare");
    await address.release();
    return;
  }
  const budget = await limits.budget.claim(mailsPerMinute);
  if (!budget) {
    log.warn("mail budget spent: mail not sent", { provider, mailsPerMinute });
    countEvent("MailBudgetSpent");
    await Promise.all([address.release(), share.release()]);
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
