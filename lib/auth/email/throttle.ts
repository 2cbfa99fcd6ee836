import { ConflictError, PreconditionFailedError } from "../../core/errors.ts";
import { VERSION_FIELD } from "../../core/schema.ts";
import type { Repository } from "../../store/repository.ts";
import { sha256Hex } from "../crypto.ts";

/**
 * At most one mail per address per `resendDelay` (spec 5.4.7), decided by a conditional write on a
 * row of the sessions table keyed by the address's hash (`mail:<sha256>`, no `user`, so outside the
 * `by_user` index; TTL removes it): the address needs no ident, so registering a new address and
 * a recovery for an unknown one do the same work and throttle alike.
 */
export class MailThrottle {
  constructor(
    private readonly sessions: Repository,
    private readonly now: () => number,
  ) {}

  async claim(email: string, resendDelaySeconds: number): Promise<boolean> {
    const id = `mail:${sha256Hex(email)}`;
    const nowS = Math.floor(this.now() / 1000);
    const row = { lastSentAt: new Date(this.now()).toISOString(), expiresAt: nowS + Math.max(resendDelaySeconds, 1) };
    try {
      await this.sessions.create({ id, ...row });
      return true;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
    const stored = await this.sessions.get({ id });
    if (!stored) return false;
    if (typeof stored.expiresAt === "number" && stored.expiresAt > nowS) return false;
    try {
      await this.sessions.patch({ id }, row, [], { expectedVersion: stored[VERSION_FIELD] as number });
      return true;
    } catch (error) {
      if (error instanceof PreconditionFailedError) return false;
      throw error;
    }
  }
}
