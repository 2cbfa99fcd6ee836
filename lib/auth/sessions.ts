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
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

function asSession(item: Item | undefined): SessionRow | undefined {
  if (!item || typeof item.id !== "string" || typeof item.user !== "string" || typeof item.expiresAt !== "number") return undefined;
  return item as unknown as SessionRow;
}

export class Sessions {
  constructor(
    private readonly repository: Repository,
    private readonly now: () => number = Date.now,
  ) {}

  async create(user: string, lifetimeSeconds: number, options: { secondFactor?: boolean } = {}): Promise<{ token: string; row: SessionRow }> {
    const token = randomToken();
    const now = this.now();
    const row: SessionRow = {
      id: sha256Hex(token),
      user,
      createdAt: new Date(now).toISOString(),
      expiresAt: seconds(now) + lifetimeSeconds,
      ...(options.secondFactor ? { secondFactor: "pending" as const } : {}),
    };
    await this.repository.create({ ...row });
    return { token, row };
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const row = asSession(await this.repository.get({ id }));
    return row && row.expiresAt > seconds(this.now()) ? row : undefined;
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

  /** Every session of a user (recovery; a password change keeps `except`). */
  async revokeAll(user: string, except?: string): Promise<number> {
    const rows = (await this.repository.findByField("user", [user])).map(asSession).filter((r): r is SessionRow => r !== undefined);
    const targets = rows.filter((r) => r.id !== except && !r.revokedAt);
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
