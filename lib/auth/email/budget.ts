import { setTimeout as sleep } from "node:timers/promises";
import { ConflictError, NotFoundError, PreconditionFailedError } from "../../core/errors.ts";
import { VERSION_FIELD } from "../../core/schema.ts";
import type { Repository } from "../../store/repository.ts";

/** Conditional writes a claim tries before it gives up; losing them all refuses the mail (fail closed). */
const ATTEMPTS = 12;

/** A mail counted on a budget, given back (`release`) when the mail is not sent after all. */
export interface BudgetClaim {
  release(): Promise<void>;
}

/**
 * Mails per calendar minute under one name, however many Lambda instances send them: the
 * service-wide budget (`mail-budget:<minute>`) and each source's share of it
 * (`mail-source:<digest>:<minute>`). One counter row per name and minute in the sessions table (no
 * `user`, so outside the `by_user` index; TTL removes it), raised by a write conditional on the
 * version read: two instances never both take the last mail of a minute. A claim is given back
 * when its mail is not sent (another limit refused it, or the transport failed), so only mails
 * actually sent spend a budget.
 */
export class MailBudget {
  constructor(
    private readonly sessions: Repository,
    private readonly now: () => number,
  ) {}

  /** The service-wide budget: undefined once `perMinute` mails of this minute are claimed. */
  async claim(perMinute: number, name = "mail-budget"): Promise<BudgetClaim | undefined> {
    const minute = Math.floor(this.now() / 60_000);
    const id = `${name}:${minute}`;
    // Kept a minute past its own, then left to TTL.
    const expiresAt = (minute + 2) * 60;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const stored = await this.sessions.get({ id });
      const count = typeof stored?.count === "number" ? stored.count : 0;
      if (count >= perMinute) return undefined;
      try {
        if (!stored) await this.sessions.create({ id, count: 1, expiresAt });
        else await this.sessions.patch({ id }, { count: count + 1 }, [], { expectedVersion: stored[VERSION_FIELD] as number });
        return { release: () => this.giveBack(id) };
      } catch (error) {
        if (!(error instanceof ConflictError || error instanceof PreconditionFailedError)) throw error;
      }
      // Another instance counted first: spread the retries so a burst does not collide again.
      await sleep(Math.floor(Math.random() * 10 * (attempt + 1)));
    }
    return undefined;
  }

  /** Lowers the count by one, conditionally as it was raised; a count it cannot lower stays (fail closed). */
  private async giveBack(id: string): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const stored = await this.sessions.get({ id });
      if (typeof stored?.count !== "number" || stored.count <= 0) return;
      try {
        await this.sessions.patch({ id }, { count: stored.count - 1 }, [], { expectedVersion: stored[VERSION_FIELD] as number });
        return;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError || error instanceof NotFoundError)) throw error;
      }
      await sleep(Math.floor(Math.random() * 10 * (attempt + 1)));
    }
  }
}
