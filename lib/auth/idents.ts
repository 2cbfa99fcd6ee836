import { ConflictError } from "../core/errors.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import type { Item, Repository } from "../store/repository.ts";
import { IdentTokens } from "./ident-tokens.ts";
import { idpIdentKey, isIdpIdentOf, issuerlessIdpKey, legacyIdpSub, migrationRequired, normalizeIssuer, unescapedIdpKey } from "./idp-keys.ts";

export type ProviderName = "email" | "idp";

/** An ident row, v4 (CONTRACT.md), as stored. */
export interface IdentRow {
  uuid: string;
  provider: ProviderName;
  providerUid: string;
  user: string;
  /** Idp idents: the issuer that vouches for `providerUid` (its `sub`); part of the key (idp-keys.ts). */
  issuer?: string;
  email?: string;
  verifiedAt?: string;
  _loginAttempts?: number;
  _lastLoginAttemptAt?: string;
  _throttle?: { lastSentAt?: string };
  tokens?: string;
  createdAt: string;
  updatedAt: string;
  [VERSION_FIELD]: number;
}

/** A row as code reads it: `tokens` decrypts on demand. */
export type Ident = Omit<IdentRow, "tokens"> & { tokens: IdentTokens };

/**
 * Where v3 compatibility plugs in (lib/auth/v3/): asked when no v4 row answers a lookup, and given
 * a user's v4 rows to complete a listing. It may upgrade rows as it reads them.
 */
export interface LegacyIdentReader {
  /** For "idp", asked only while exactly one Idp is configured: the row is upgraded to that issuer's key. */
  find(provider: ProviderName, providerUid: string): Promise<IdentRow | undefined>;
  listByUser?(user: string, found: IdentRow[]): Promise<IdentRow[]>;
  /** Whether a v3 row exists for this identity, read without upgrading it. */
  exists?(provider: ProviderName, providerUid: string): Promise<boolean>;
}

/** Emails are trimmed and lowercased before any lookup; other providers' ids are taken as given. */
export function normalizeUid(provider: ProviderName, providerUid: string): string {
  return provider === "email" ? providerUid.trim().toLowerCase() : providerUid;
}

/** An ident's key; an Idp ident's carries its issuer (idp-keys.ts), which is then required. */
export function identKey(provider: ProviderName, providerUid: string, issuer?: string): string {
  if (provider !== "idp") return `${normalizeUid(provider, providerUid)}:${provider}`;
  if (issuer === undefined) throw new Error("an Idp ident is keyed by its issuer: none was given");
  return idpIdentKey(issuer, providerUid);
}

function asRow(item: Item | undefined): IdentRow | undefined {
  if (!item || typeof item.uuid !== "string" || typeof item.user !== "string" || typeof item.provider !== "string") return undefined;
  return item as unknown as IdentRow;
}

export class Idents {
  private legacy: LegacyIdentReader | undefined;
  private idpIssuers: readonly string[] = [];

  constructor(
    private readonly repository: Repository,
    private readonly tokenKey: Uint8Array,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Installs the v3 reader (while `compatibility.v3` is on). */
  useLegacyReader(reader: LegacyIdentReader | undefined): void {
    this.legacy = reader;
  }

  /**
   * The configured Idp issuers. With exactly one, an issuerless Idp ident (`<sub>:idp`, v3
   * `<sub>_idp`) is taken to be its and moved to its key at login; with several, it is refused.
   */
  useIdpIssuers(issuers: readonly string[]): void {
    this.idpIssuers = issuers.map(normalizeIssuer);
  }

  view(row: IdentRow): Ident {
    return { ...row, tokens: new IdentTokens(row.tokens, this.tokenKey) };
  }

  /** The one lookup every login and flow goes through; an Idp identity is named by issuer and sub. */
  async find(provider: ProviderName, providerUid: string, issuer?: string): Promise<Ident | undefined> {
    if (provider === "idp") {
      if (issuer === undefined) throw new Error("an Idp ident is keyed by its issuer: none was given");
      const keyed = asRow(await this.repository.get({ uuid: identKey(provider, providerUid, issuer) }));
      // A row on this key that is not this identity's (an issuerless row whose `sub` reads like
      // "<sub>@<tag>", or one keyed before subs were escaped) is refused, never taken for its own.
      if (keyed && !isIdpIdentOf(keyed, issuer, providerUid)) throw migrationRequired();
      const row = keyed ?? (await this.unescaped(providerUid, issuer)) ?? (await this.issuerless(providerUid, issuer));
      return row ? this.view(row) : undefined;
    }
    const uid = normalizeUid(provider, providerUid);
    // With a legacy reader, both lookups run side by side, found or not: asking the legacy keys
    // only on a miss made an unknown address one DynamoDB round trip slower than a known one,
    // which told registration, recovery and login callers which addresses have accounts.
    const [current, legacy] = await Promise.all([this.repository.get({ uuid: identKey(provider, uid) }), this.legacy?.find(provider, uid)]);
    const row = asRow(current) ?? legacy;
    return row ? this.view(row) : undefined;
  }

  /**
   * An Idp identity keyed before subs were escaped: only a `sub` holding `%`, `@` or `:` keyed
   * otherwise, and the row counts only if it stores this very issuer and sub. Moved to its key.
   */
  private async unescaped(sub: string, issuer: string): Promise<IdentRow | undefined> {
    const key = unescapedIdpKey(issuer, sub);
    if (key === identKey("idp", sub, issuer)) return undefined;
    const row = asRow(await this.repository.get({ uuid: key }));
    return row && isIdpIdentOf(row, issuer, sub) ? this.moveToKey(row, sub, issuer) : undefined;
  }

  /**
   * An Idp identity found under no issuer-keyed row: an issuerless row of the same `sub` is its,
   * moved to the issuer's key, when this is the only Idp configured; with several, nothing says
   * whose it is, and it is refused (`IDENT_MIGRATION_REQUIRED`) rather than handed to whichever
   * issuer asks first. Only a row `legacyIdpSub` names legacy counts: a row that names an issuer
   * is some identity's own, whatever `sub` spelled its key.
   */
  private async issuerless(sub: string, issuer: string): Promise<IdentRow | undefined> {
    const [old, v3] = await Promise.all([this.repository.get({ uuid: issuerlessIdpKey(sub) }), this.legacy?.exists?.("idp", sub)]);
    const found = asRow(old);
    const row = found && legacyIdpSub(found) === sub ? found : undefined;
    if (!row && !v3) return undefined;
    if (this.idpIssuers.length !== 1 || this.idpIssuers[0] !== normalizeIssuer(issuer)) throw migrationRequired();
    if (!row) return this.legacy?.find("idp", sub);
    return this.moveToKey(row, sub, issuer);
  }

  /** Writes the row under the identity's key (with its issuer), then removes the old one. */
  private async moveToKey(row: IdentRow, sub: string, issuer: string): Promise<IdentRow | undefined> {
    const { [VERSION_FIELD]: version, ...fields } = row;
    const moved = { ...fields, uuid: identKey("idp", sub, issuer), issuer: normalizeIssuer(issuer), updatedAt: this.now().toISOString() };
    try {
      await this.repository.create(moved);
    } catch (error) {
      // Moved by a concurrent login: the issuer-keyed row is the truth.
      if (!(error instanceof ConflictError)) throw error;
      const current = asRow(await this.repository.get({ uuid: moved.uuid }));
      if (current && !isIdpIdentOf(current, issuer, sub)) throw migrationRequired();
      return current;
    }
    // A crash here leaves the old row behind the new one, which every lookup finds first; the
    // migration removes such leftovers.
    await this.repository.delete({ uuid: row.uuid }, { expectedVersion: version }).catch(() => undefined);
    return asRow(await this.repository.get({ uuid: moved.uuid }));
  }

  async listByUser(user: string): Promise<Ident[]> {
    const rows = (await this.repository.findByField("user", [user])).map(asRow).filter((r): r is IdentRow => r !== undefined);
    const all = this.legacy?.listByUser ? await this.legacy.listByUser(user, rows) : rows;
    return all.sort((a, b) => a.uuid.localeCompare(b.uuid)).map((r) => this.view(r));
  }

  /**
   * ConflictError when the key exists: two registrations of one email never both succeed. An
   * address a not-yet-migrated v3 account holds counts as taken too (the legacy reader upgrades
   * it here, so the conditional create below meets it), whatever path creates the ident.
   */
  async create(init: {
    provider: ProviderName;
    providerUid: string;
    issuer?: string;
    user: string;
    email?: string;
    verified?: boolean;
    tokens?: Record<string, unknown>;
  }): Promise<Ident> {
    const uid = normalizeUid(init.provider, init.providerUid);
    if (init.provider === "email" && this.legacy && (await this.legacy.find("email", uid))) throw new ConflictError("An account already uses this email");
    const now = this.now().toISOString();
    const row: Omit<IdentRow, typeof VERSION_FIELD> = {
      uuid: identKey(init.provider, uid, init.issuer),
      provider: init.provider,
      providerUid: uid,
      ...(init.provider === "idp" && init.issuer !== undefined ? { issuer: normalizeIssuer(init.issuer) } : {}),
      user: init.user,
      ...(init.email ? { email: init.email.trim().toLowerCase() } : {}),
      ...(init.verified ? { verifiedAt: now } : {}),
      ...(init.tokens ? { tokens: await IdentTokens.seal(init.tokens, this.tokenKey) } : {}),
      createdAt: now,
      updatedAt: now,
    };
    return this.view(asRow(await this.repository.create({ ...row })) as IdentRow);
  }

  /** Writes the given fields; with `expectedVersion`, only over that version (PreconditionFailedError otherwise). */
  async patch(
    ident: Pick<Ident, "uuid">,
    set: Partial<Omit<IdentRow, "uuid" | "tokens">> & { tokens?: Record<string, unknown> },
    remove: string[] = [],
    expectedVersion?: number,
  ): Promise<Ident> {
    const { tokens, ...fields } = set;
    const item: Item = { ...fields, updatedAt: this.now().toISOString() };
    if (tokens) item.tokens = await IdentTokens.seal(tokens, this.tokenKey);
    const written = await this.repository.patch({ uuid: ident.uuid }, item, remove, expectedVersion === undefined ? {} : { expectedVersion });
    return this.view(asRow(written) as IdentRow);
  }

  async delete(ident: Pick<Ident, "uuid">): Promise<void> {
    await this.repository.delete({ uuid: ident.uuid });
  }

  static isConflict(error: unknown): boolean {
    return error instanceof ConflictError;
  }
}
