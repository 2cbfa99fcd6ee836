import { ConflictError, NotFoundError, PreconditionFailedError } from "../core/errors.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import type { Item, Repository } from "../store/repository.ts";
import { randomToken, sha256Hex } from "./crypto.ts";

/** A session row (CONTRACT.md): the cookie holds the token, the table only its SHA-256. */
export interface SessionRow {
  id: string;
  user: string;
  createdAt: string;
  /** Epoch seconds; DynamoDB's TTL removes the row some time after. */
  expiresAt: number;
  /** The user's credential generation it was opened under (absent: 0); a later one ends it. */
  generation?: number;
  /** Wrong current passwords given to a password change through this session (counted here, not on the login). */
  _changeAttempts?: number;
  _lastChangeAttemptAt?: string;
  [VERSION_FIELD]?: number;
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
 * The user's credential row (`cutoff:<user>` in the sessions table; no `user` attribute, so outside
 * the `by_user` index): "every session of this user created before `at`, or opened under another
 * `generation`, is revoked" (except `keep`). A password change or recovery writes the new hash,
 * then increments `generation`; a login reads the generation before it reads the hash it verifies.
 * So a login that verified the old password also read the old generation, however the requests
 * interleave, and its session is dead from the increment on. The row carries no TTL: it must
 * outlive every session opened under it. `at` also ends the sessions the asynchronously updated
 * `by_user` index had not listed when they were revoked.
 */
interface Cutoff {
  at: string;
  keep?: string;
  generation: number;
}

const cutoffKey = (user: string): { id: string } => ({ id: `cutoff:${user}` });

function asCutoff(item: Item | undefined): Cutoff | undefined {
  if (!item || typeof item.at !== "string") return undefined;
  return { at: item.at, generation: typeof item.generation === "number" ? item.generation : 0, ...(typeof item.keep === "string" ? { keep: item.keep } : {}) };
}

/** The row as a reader must see it: revoked as well when its user's credential row covers it. */
function withCutoff(row: SessionRow, cutoff: Cutoff | undefined): SessionRow {
  if (row.revokedAt || (cutoff && row.id === cutoff.keep)) return row;
  // No row means generation 0: a session of a later one whose row is gone is not trusted either.
  if ((row.generation ?? 0) !== (cutoff?.generation ?? 0)) return { ...row, revokedAt: cutoff?.at ?? row.createdAt };
  if (!cutoff || row.createdAt >= cutoff.at) return row;
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

  /**
   * `generation`: what `generation(user)` answered before the credential that opens it was
   * checked; `ident`: the key of the ident whose login opens it (unlinking that ident revokes it).
   */
  async create(
    user: string,
    lifetimeSeconds: number,
    options: { secondFactor?: boolean; generation?: number; ident?: string } = {},
  ): Promise<{ token: string; row: SessionRow }> {
    const token = randomToken();
    const now = this.now();
    const row: SessionRow = {
      id: sha256Hex(token),
      user,
      createdAt: new Date(now).toISOString(),
      expiresAt: seconds(now) + lifetimeSeconds,
      generation: options.generation ?? 0,
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

  /** The user's current credential generation; read it before the credential a login checks. */
  async generation(user: string): Promise<number> {
    return asCutoff(await this.repository.get(cutoffKey(user)))?.generation ?? 0;
  }

  /** The session a cookie names, when it still logs its user in. */
  async byCookie(token: string): Promise<SessionRow | undefined> {
    if (token.length < 32 || token.length > 64) return undefined;
    const row = await this.get(sha256Hex(token));
    return row && !row.endedAt && !row.revokedAt ? row : undefined;
  }

  /** Access tokens outlive a logout (stateless until they expire) but not a revocation. */
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

  /** A password change's attempt through this session, only over the version read (PreconditionFailedError otherwise). */
  async countChangeAttempt(row: SessionRow, attempts: number): Promise<void> {
    await this.repository.patch({ id: row.id }, { _changeAttempts: attempts, _lastChangeAttemptAt: new Date(this.now()).toISOString() }, [], {
      expectedVersion: row[VERSION_FIELD] ?? 0,
    });
  }

  async revoke(id: string): Promise<void> {
    await this.patch(id, { revokedAt: new Date(this.now()).toISOString() });
  }

  /** The ids among these whose access tokens must no longer be accepted (two batched reads: sessions, then their users' cutoffs). */
  async revokedAmong(ids: string[]): Promise<Set<string>> {
    const nowS = seconds(this.now());
    const rows = (await this.repository.getMany(ids.map((id) => ({ id }))))
      .map(asSession)
      .filter((r): r is SessionRow => r !== undefined && r.expiresAt > nowS);
    const users = [...new Set(rows.map((r) => r.user))];
    const cutoffs = new Map<string, Cutoff | undefined>();
    if (users.length > 0) {
      for (const item of await this.repository.getMany(users.map(cutoffKey))) cutoffs.set(String(item.id), asCutoff(item));
    }
    const alive = new Set(
      rows
        .map((r) => withCutoff(r, cutoffs.get(cutoffKey(r.user).id)))
        .filter((r) => Sessions.acceptsAccessTokens(r))
        .map((r) => r.id),
    );
    return new Set(ids.filter((id) => !alive.has(id)));
  }

  /**
   * Every session of a user (recovery; a password change keeps `except`): a new credential
   * generation (returned: the session opened next is opened under it), written first, so a session
   * the `by_user` index does not list yet, or one a racing login opens after this, is ended all the
   * same when read; then the listed sessions are marked revoked.
   */
  async revokeAll(user: string, except?: string): Promise<{ revoked: number; generation: number }> {
    const generation = await this.nextGeneration(user, except);
    const rows = (await this.repository.findByField("user", [user])).map(asSession).filter((r): r is SessionRow => r !== undefined);
    const targets = rows.filter((r) => r.id !== except && !r.revokedAt);
    await Promise.all(targets.map((r) => this.revoke(r.id)));
    return { revoked: targets.length, generation };
  }

  /** Increments the generation by a conditional write, so two changes at once make two generations. */
  private async nextGeneration(user: string, keep: string | undefined): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const stored = await this.repository.get(cutoffKey(user));
      const generation = (asCutoff(stored)?.generation ?? 0) + 1;
      const set: Item = { at: new Date(this.now()).toISOString(), generation, ...(keep ? { keep } : {}) };
      try {
        if (stored)
          await this.repository.patch(cutoffKey(user), set, keep ? ["expiresAt"] : ["keep", "expiresAt"], { expectedVersion: stored[VERSION_FIELD] as number });
        else await this.repository.create({ ...cutoffKey(user), ...set });
        return generation;
      } catch (error) {
        const raced = error instanceof ConflictError || error instanceof PreconditionFailedError || error instanceof NotFoundError;
        if (!raced || attempt >= 20) throw error;
      }
    }
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
