import { ConflictError, NotFoundError } from "../../core/errors.ts";
import type { Repository } from "../../store/repository.ts";

/** A mail counted on a budget, given back (`release`) when the mail is not sent after all. */
export interface BudgetClaim {
  release(): Promise<void>;
}

/**
 * Mails per calendar minute under one name, however many Lambda instances send them: the
 * service-wide budget (`mail-budget:<minute>`) and each source's share of it
 * (`mail-source:<digest>:<minute>`). One counter row per name and minute in the sessions table (no
 * `user`, so outside the `by_user` index; TTL removes it), raised by one atomic write bounded by
 * the limit (`Repository.adjust`): two instances never both take the last unit of a minute, and a
 * burst of requests from one source (each of which spends its share, mailed or not) costs one
 * write each, never a retry loop on a contended row.
 */
export class MailBudget {
  constructor(
    private readonly sessions: Repository,
    private readonly now: () => number,
  ) {}

  /** One unit of this minute's `name` counter: undefined once `perMinute` are claimed. */
  async claim(perMinute: number, name = "mail-budget"): Promise<BudgetClaim | undefined> {
    const minute = Math.floor(this.now() / 60_000);
    const key = { id: `${name}:${minute}` };
    let raised: number | undefined;
    try {
      raised = await this.adjust(key, 1, perMinute);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The minute's first claim: its row, at 0 (kept a minute past its own, then left to TTL).
      await this.sessions.create({ ...key, count: 0, expiresAt: (minute + 2) * 60 }).catch((created: unknown) => {
        if (!(created instanceof ConflictError)) throw created;
      });
      raised = await this.adjust(key, 1, perMinute);
    }
    if (raised === undefined) return undefined;
    return {
      // Lowered as it was raised; a count it cannot lower stays (fail closed).
      release: () =>
        this.adjust(key, -1, Number.MAX_SAFE_INTEGER).then(
          () => undefined,
          () => undefined,
        ),
    };
  }

  private adjust(key: { id: string }, by: number, max: number): Promise<number | undefined> {
    if (!this.sessions.adjust) throw new Error("the sessions table's store keeps no counters (Repository.adjust)");
    return this.sessions.adjust(key, "count", by, max);
  }
}
