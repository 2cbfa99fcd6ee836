import { ConflictError, PreconditionFailedError } from "../../core/errors.ts";
import { VERSION_FIELD } from "../../core/schema.ts";
import type { Repository } from "../../store/repository.ts";
import { sha256Hex } from "../crypto.ts";
import type { BudgetClaim } from "./budget.ts";

/**
 * The kinds of mail, each with its own per-address slot: a kind is the route that asked (never
 * whether the address has an account, which the answer must not tell), so a stranger asking one
 * kind for an address never holds back another kind's mail to it (a recovery link is never
 * crowded out by verification requests).
 */
export type MailKind = "register" | "verification" | "recovery";

/**
 * At most one mail per address and kind per `resendDelay`, decided by a conditional write on a
 * row of the sessions table keyed by the kind and the address's hash (`mail:<kind>:<sha256>`, no
 * `user`, so outside the `by_user` index; TTL removes it): the address needs no ident, so
 * registering a new address and a recovery for an unknown one do the same work and throttle
 * alike. A claim whose mail is not sent after all (a budget refused it, or the transport failed)
 * is given back: the address may ask again at once rather than wait for a mail that never came.
 */
export class MailThrottle {
  constructor(
    private readonly sessions: Repository,
    private readonly now: () => number,
  ) {}

  async claim(kind: MailKind, email: string, resendDelaySeconds: number): Promise<BudgetClaim | undefined> {
    const id = `mail:${kind}:${sha256Hex(email)}`;
    const nowS = Math.floor(this.now() / 1000);
    const row = { lastSentAt: new Date(this.now()).toISOString(), expiresAt: nowS + Math.max(resendDelaySeconds, 1) };
    const claimed = (written: Record<string, unknown>): BudgetClaim => ({
      // Only the row this claim wrote: a later claim's row stays.
      release: () =>
        this.sessions.delete({ id }, { expectedVersion: written[VERSION_FIELD] as number }).then(
          () => undefined,
          () => undefined,
        ),
    });
    try {
      return claimed(await this.sessions.create({ id, ...row }));
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
    const stored = await this.sessions.get({ id });
    if (!stored) return undefined;
    if (typeof stored.expiresAt === "number" && stored.expiresAt > nowS) return undefined;
    try {
      return claimed(await this.sessions.patch({ id }, row, [], { expectedVersion: stored[VERSION_FIELD] as number }));
    } catch (error) {
      if (error instanceof PreconditionFailedError) return undefined;
      throw error;
    }
  }
}
