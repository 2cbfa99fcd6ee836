import { ConflictError, PreconditionFailedError } from "../core/errors.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import type { Item, Repository } from "../store/repository.ts";
import { hmac, randomToken, sha256Hex } from "./crypto.ts";

/** A refresh-token row (CONTRACT.md). The family is the session: ending one ends the other. */
export interface RefreshRow {
  id: string;
  family: string;
  user: string;
  session: string;
  createdAt: string;
  expiresAt: number;
  /** Epoch milliseconds of the first use; set once, by a conditional write. */
  usedAt?: number;
  /** SHA-256 of the token that replaced this one. */
  successor?: string;
}

export type Rotation =
  /** `fresh`: this call used the token first; `repeat`: a concurrent use inside the reuse interval. */
  | { kind: "rotated"; next: string; row: RefreshRow; usedAt: number; repeat: boolean }
  /** Unknown, expired or malformed. */
  | { kind: "invalid" }
  /** Used before, outside the reuse interval: the caller revokes the family. */
  | { kind: "reused"; row: RefreshRow };

function asRefresh(item: Item | undefined): (RefreshRow & { [VERSION_FIELD]: number }) | undefined {
  if (!item || typeof item.id !== "string" || typeof item.session !== "string" || typeof item.user !== "string") return undefined;
  return item as unknown as RefreshRow & { [VERSION_FIELD]: number };
}

/**
 * Opaque rotating refresh tokens. A token's successor is derived from it (HMAC under a key from the
 * application secret), so every concurrent use inside the reuse interval computes the same next
 * token without the table ever holding a usable one. Who used a token first is decided by a
 * conditional write on its row, never by a read followed by a write.
 */
export class RefreshTokens {
  constructor(
    private readonly repository: Repository,
    private readonly successorKey: Uint8Array,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(user: string, session: string, expiresAt: number): Promise<string> {
    const token = randomToken();
    await this.store(token, { user, session, expiresAt });
    return token;
  }

  private async store(token: string, base: { user: string; session: string; expiresAt: number }): Promise<void> {
    const row: RefreshRow = {
      id: sha256Hex(token),
      family: base.session,
      user: base.user,
      session: base.session,
      createdAt: new Date(this.now()).toISOString(),
      expiresAt: base.expiresAt,
    };
    try {
      await this.repository.create({ ...row });
    } catch (error) {
      // A concurrent use inside the reuse interval stored the same successor first.
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  successorOf(token: string): string {
    return hmac(this.successorKey, `refresh-successor:${token}`);
  }

  async rotate(token: string, reuseIntervalMs: number): Promise<Rotation> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return { kind: "invalid" };
    const id = sha256Hex(token);
    let row = asRefresh(await this.repository.get({ id }));
    const nowS = Math.floor(this.now() / 1000);
    if (!row || row.expiresAt <= nowS) return { kind: "invalid" };
    const next = this.successorOf(token);
    let repeat = true;
    if (row.usedAt === undefined) {
      const usedAt = this.now();
      try {
        row = asRefresh(await this.repository.patch({ id }, { usedAt, successor: sha256Hex(next) }, [], { expectedVersion: row[VERSION_FIELD] }));
        repeat = false;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
        // Someone used it between our read and our write: their write decided; read what it says.
        row = asRefresh(await this.repository.get({ id }));
      }
      if (!row) return { kind: "invalid" };
    }
    const usedAt = row.usedAt ?? 0;
    if (repeat && this.now() - usedAt > reuseIntervalMs) return { kind: "reused", row };
    await this.store(next, row);
    return { kind: "rotated", next, row, usedAt, repeat };
  }
}
