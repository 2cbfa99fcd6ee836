import { ConflictError, NotFoundError, PreconditionFailedError } from "../core/errors.ts";
import type { Item, Repository } from "../store/repository.ts";
import { randomToken, sha256Hex } from "./crypto.ts";

/** A session row (CONTRACT.md): the cookie holds the token, the table only its SHA-256. */
export interface SessionRow {
  id: string;
  user: string;
  createdAt: string;
  /** Epoch seconds; DynamoDB's TTL removes the row some time after. */
  expiresAt: number;
  /** Waiting for a second factor: no current user until it is cleared. */
  secondFactor?: "pending";
  /** Logged out: the cookie and the refresh tokens are dead; access tokens live until they expire. */
  endedAt?: string;
  /** Ended by recovery, a password change or a refresh-token reuse: its access tokens are dead too. */
  revokedAt?: string;
  /** The ident (its key) whose login opened the session: unlinking that ident ends it. */
  ident?: string;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * "Every session of this user created before `at` is revoked" (except `keep`): a row of the
 * sessions table (no `user` attribute, so outside the `by_user` index; TTL removes it once every
 * session it could end has expired). Ending all sessions reads that index, which DynamoDB updates
 * asynchronously; this row ends the sessions the index had not caught up with when they are read.
 */
interface Cutoff {
  at: string;
  keep?: string;
}

const cutoffKey = (user: string): { id: string } => ({ id: `cutoff:${user}` });

function asCutoff(item: Item | undefined): Cutoff | undefined {
  return item && typeof item.at === "string" ? { at: item.at, ...(typeof item.keep === "string" ? { keep: item.keep } : {}) } : undefined;
}

/** The row as a reader must see it: revoked as well when a later cutoff of its user covers it. */
function withCutoff(row: SessionRow, cutoff: Cutoff | undefined): SessionRow {
  if (!cutoff || row.revokedAt || row.id === cutoff.keep || row.createdAt >= cutoff.at) return row;
  return { ...row, revokedAt: cutoff.at };
}

function asSession(item: Item | undefined): SessionRow | undefined {
  if (!item || typeof item.id !== "string" || typeof item.user !== "string" || typeof item.expiresAt !== "number") return undefined;
  return item as unknown as SessionRow;
}

export class Sessions {
  constructor(
    private readonly repository: Repository,
    private readonly now: () => number = Date.now,
  ) {}

  async create(user: string, lifetimeSeconds: number, options: { secondFactor?: boolean; ident?: string } = {}): Promise<{ token: string; row: SessionRow }> {
    const token = randomToken();
    const now = this.now();
    const row: SessionRow = {
      id: sha256Hex(token),
      user,
      createdAt: new Date(now).toISOString(),
      expiresAt: seconds(now) + lifetimeSeconds,
      ...(options.secondFactor ? { secondFactor: "pending" as const } : {}),
      ...(options.ident ? { ident: options.ident } : {}),
    };
    await this.repository.create({ ...row });
    return { token, row };
  }

  /**
   * A live session, its user's cutoff applied. With the user known (an access token's `sub`, a
   * refresh token's row) both rows come in one batched read; otherwise the cutoff follows.
   */
  async get(id: string, user?: string): Promise<SessionRow | undefined> {
    let row: SessionRow | undefined;
    let cutoff: Cutoff | undefined;
    if (user === undefined) {
      row = asSession(await this.repository.get({ id }));
      if (row) cutoff = asCutoff(await this.repository.get(cutoffKey(row.user)));
    } else {
      const items = await this.repository.getMany([{ id }, cutoffKey(user)]);
      row = asSession(items.find((i) => i.id === id));
      if (row && row.user !== user) return undefined;
      cutoff = asCutoff(items.find((i) => i.id === cutoffKey(user).id));
    }
    return row && row.expiresAt > seconds(this.now()) ? withCutoff(row, cutoff) : undefined;
  }

  /** The session a cookie names, when it still logs its user in. */
  async byCookie(token: string): Promise<SessionRow | undefined> {
    if (token.length < 32 || token.length > 64) return undefined;
    const row = await this.get(sha256Hex(token));
    return row && !row.endedAt && !row.revokedAt ? row : undefined;
  }

  /** Access tokens outlive a logout (spec 5.4.9) but not a revocation. */
  static acceptsAccessTokens(row: SessionRow | undefined): row is SessionRow {
    return row !== undefined && !row.revokedAt;
  }

  static logsIn(row: SessionRow | undefined): row is SessionRow {
    return row !== undefined && !row.endedAt && !row.revokedAt && row.secondFactor === undefined;
  }

  /**
   * Logout: the cookie and refresh tokens stop at once; the row is kept only as long as an access
   * token issued for it may live, then TTL removes it.
   */
  async end(id: string, accessLifetimeSeconds: number): Promise<void> {
    const now = this.now();
    await this.patch(id, { endedAt: new Date(now).toISOString(), expiresAt: seconds(now) + accessLifetimeSeconds + 60 });
  }

  async revoke(id: string): Promise<void> {
    await this.patch(id, { revokedAt: new Date(this.now()).toISOString() });
  }

  /** The ids among these whose access tokens must no longer be accepted (two batched reads: sessions, then their users' cutoffs). */
  async revokedAmong(ids: string[]): Promise<Set<string>> {
    const nowS = seconds(this.now());
    const rows = (await this.repository.getMany(ids.map((id) => ({ id })))).map(asSession).filter((r): r is SessionRow => r !== undefined && r.expiresAt > nowS);
    const users = [...new Set(rows.map((r) => r.user))];
    const cutoffs = new Map<string, Cutoff | undefined>();
    if (users.length > 0) {
      for (const item of await this.repository.getMany(users.map(cutoffKey))) cutoffs.set(String(item.id), asCutoff(item));
    }
    const alive = new Set(rows.map((r) => withCutoff(r, cutoffs.get(cutoffKey(r.user).id))).filter((r) => Sessions.acceptsAccessTokens(r)).map((r) => r.id));
    return new Set(ids.filter((id) => !alive.has(id)));
  }

  /**
   * Every session of a user (recovery; a password change keeps `except`). The cutoff is written
   * first, so a session the `by_user` index does not list yet is ended all the same when read;
   * `lifetimeSeconds` (the longest a session lives) is how long the cutoff must be kept.
   */
  async revokeAll(user: string, lifetimeSeconds: number, except?: string): Promise<number> {
    const now = this.now();
    const cutoff: Item = { at: new Date(now).toISOString(), expiresAt: seconds(now) + lifetimeSeconds + 60, ...(except ? { keep: except } : {}) };
    try {
      await this.repository.create({ ...cutoffKey(user), ...cutoff });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      await this.repository.patch(cutoffKey(user), cutoff, except ? [] : ["keep"]);
    }
    const rows = (await this.repository.findByField("user", [user])).map(asSession).filter((r): r is SessionRow => r !== undefined);
    const targets = rows.filter((r) => r.id !== except && !r.revokedAt);
    await Promise.all(targets.map((r) => this.revoke(r.id)));
    return targets.length;
  }

  /** Unlinking an ident: the user's live sessions that ident's login opened end (cookie, refresh and access tokens). */
  async revokeOpenedBy(user: string, ident: string): Promise<number> {
    const rows = (await this.repository.findByField("user", [user])).map(asSession).filter((r): r is SessionRow => r !== undefined);
    const targets = rows.filter((r) => r.ident === ident && !r.revokedAt);
    await Promise.all(targets.map((r) => this.revoke(r.id)));
    return targets.length;
  }

  private async patch(id: string, set: Item): Promise<void> {
    try {
      await this.repository.patch({ id }, set, []);
    } catch (error) {
      // Already removed by TTL (or never there): nothing left to end.
      if (!(error instanceof NotFoundError || error instanceof PreconditionFailedError || error instanceof ConflictError)) throw error;
    }
  }
}
