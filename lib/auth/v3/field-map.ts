import { normalizeIssuer } from "../idp-keys.ts";
import { isoDate, normalizeEmail, v4Key, type Provider, type V3IdentRow } from "./format.ts";

export type Row = Record<string, unknown>;

/** The v3 fields the map consumes; every other field of a v3 row is carried over unchanged. */
const CONSUMED = new Set([
  "uuid",
  "_type",
  "_user",
  "email",
  "_validation",
  "_failedLogin",
  "_lastFailedLogin",
  "_lastValidationEmail",
  "__tokens",
  "_creationDate",
  "_lastUpdate",
  "__version",
]);

export interface IdentMapOptions {
  /** Seals provider tokens (TokenSealer.seal): v3 kept them in plaintext. */
  seal: (tokens: Record<string, unknown>) => Promise<string>;
  now: string;
  /** An Idp ident's issuer (the only Idp configured): the row is keyed and marked with it. */
  issuer?: string;
}

/**
 * The v3-to-v4 field map for one ident, used by the lazy upgrade and the migrate command alike:
 * `_failedLogin` -> `_loginAttempts`, `_lastFailedLogin` -> `_lastLoginAttemptAt`,
 * `_lastValidationEmail` -> `_throttle.lastSentAt`, `_validation` -> `verifiedAt`, plaintext
 * `__tokens` -> sealed `tokens`; the key becomes `<providerUid>:<provider>`.
 */
export async function upgradeIdent(source: Row, provider: Provider, providerUid: string, options: IdentMapOptions): Promise<Row> {
  const row = source as V3IdentRow;
  const carried = Object.fromEntries(Object.entries(row).filter(([field]) => !CONSUMED.has(field)));
  const email = provider === "email" ? normalizeEmail(providerUid) : typeof row.email === "string" ? normalizeEmail(row.email) : undefined;
  const upgraded: Row = {
    ...carried,
    uuid: v4Key(provider, providerUid, provider === "idp" ? options.issuer : undefined),
    provider,
    providerUid: provider === "email" ? normalizeEmail(providerUid) : providerUid,
  };
  if (provider === "idp" && options.issuer !== undefined) upgraded.issuer = normalizeIssuer(options.issuer);
  if (typeof row._user === "string" && row._user !== "") upgraded.user = row._user;
  if (email !== undefined) upgraded.email = email;
  if (row._validation !== undefined && row._validation !== null && row._validation !== false) {
    // A v3 flag that is not a date (`true`) still says "verified"; the moment is then unknown.
    upgraded.verifiedAt = isoDate(row._validation) ?? options.now;
  }
  if (typeof row._failedLogin === "number" && row._failedLogin > 0) {
    upgraded._loginAttempts = row._failedLogin;
    // Without a timestamp the count stays without one: the email provider reads a count with no
    // `_lastLoginAttemptAt` as an expired lock and starts counting anew.
    const last = isoDate(row._lastFailedLogin);
    if (last !== undefined) upgraded._lastLoginAttemptAt = last;
  }
  const lastSentAt = isoDate(row._lastValidationEmail);
  if (lastSentAt !== undefined) upgraded._throttle = { lastSentAt };
  if (row.__tokens !== undefined && row.__tokens !== null && typeof row.__tokens === "object") {
    upgraded.tokens = await options.seal(row.__tokens);
  }
  upgraded.createdAt = isoDate(row._creationDate) ?? options.now;
  upgraded.updatedAt = options.now;
  upgraded.__version = 1;
  return upgraded;
}

/** What a v3 user row needs: `__password` -> `password.__hash`; undefined when nothing to do. */
export function upgradeUser(row: Row): { set: Row; remove: string[] } | undefined {
  const hash = row.__password;
  if (typeof hash !== "string") return undefined;
  const password = row.password !== null && typeof row.password === "object" ? (row.password as Row) : {};
  // A v4 hash already set wins: the v3 one is stale (the password was changed after the upgrade).
  if (typeof password.__hash === "string") return { set: {}, remove: ["__password"] };
  return { set: { password: { ...password, __hash: hash } }, remove: ["__password"] };
}

/** The user row as v4 code reads it, without writing anything ("mapped on load"). */
export function userOnLoad(row: Row): Row {
  const change = upgradeUser(row);
  if (!change) return row;
  const loaded: Row = { ...row, ...change.set };
  for (const field of change.remove) delete loaded[field];
  return loaded;
}
