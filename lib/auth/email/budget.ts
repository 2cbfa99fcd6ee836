import { setTimeout as sleep } from "node:timers/promises";
import { ConflictError, PreconditionFailedError } from "../../core/errors.ts";
import { VERSION_FIELD } from "../../core/schema.ts";
import type { Repository } from "../../store/repository.ts";

/** Conditional writes a claim tries before it gives up; losing them all refuses the mail (fail closed). */
const ATTEMPTS = 12;

/**
 * The service-wide mail budget (issue 25): at most `perMinute` mails per calendar minute for the
 * whole service, however many Lambda instances send them. One counter row per minute in the
 * sessions table (`mail-budget:<minute>`, no `user`, so outside the `by_user` index; TTL removes
 * it), raised by a write conditional on the version read: two instances never both take the last
 * mail of a minute. The per-address throttle bounds one mailbox; this bounds the sum over every
 * address (sub-addresses, many victims, many domains), and with it the sending reputation.
 */
export class MailBudget {
  constructor(
    private readonly sessions: Repository,
    private readonly now: () => number,
  ) {}

  async claim(perMinute: number): Promise<boolean> {
    const minute = Math.floor(this.now() / 60_000);
    const id = `mail-budget:${minute}`;
    // Kept a minute past its own, then left to TTL.
    const expiresAt = (minute + 2) * 60;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const stored = await this.sessions.get({ id });
      const count = typeof stored?.count === "number" ? stored.count : 0;
      if (count >= perMinute) return false;
      try {
        if (!stored) await this.sessions.create({ id, count: 1, expiresAt });
        else await this.sessions.patch({ id }, { count: count + 1 }, [], { expectedVersion: stored[VERSION_FIELD] as number });
        return true;
      } catch (error) {
        if (!(error instanceof ConflictError || error instanceof PreconditionFailedError)) throw error;
      }
      // Another instance counted first: spread the retries so a burst does not collide again.
      await sleep(Math.floor(Math.random() * 10 * (attempt + 1)));
    }
    return false;
  }
}
