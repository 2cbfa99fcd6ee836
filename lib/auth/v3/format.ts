import { idpIdentKey } from "../idp-keys.ts";

/**
 * What webda v3 stored, in one place. Established from webda v3's Authentication service: idents
 * are keyed `<providerUid>_<provider>` (`onIdentLogin` appends `_${provider}`; the email flow
 * builds `<email>_email`, lowercased at login but not when a validation mail was asked for, hence
 * case variants), carry `_type`, `_user`, `_validation` (a Date), `_failedLogin`,
 * `_lastFailedLogin` (a Date), `_lastValidationEmail` (`Date.now()`), `__tokens` and `__profile`;
 * the user carries `__password`, a bcrypt hash (`bcrypt.hashSync(password, salt || 10)`).
 * Dates went through JSON, so a v3 date is an ISO string or epoch milliseconds: both are read.
 */

export const V4_PROVIDERS = ["email", "idp"] as const;
export type Provider = (typeof V4_PROVIDERS)[number];

export interface V3IdentRow {
  uuid: string;
  _type?: string;
  _user?: string;
  email?: string;
  _validation?: string | number | boolean;
  _failedLogin?: number;
  _lastFailedLogin?: string | number;
  _lastValidationEmail?: string | number;
  __tokens?: Record<string, unknown>;
  [field: string]: unknown;
}

/** How a key in the idents table reads. */
export type KeyShape =
  { kind: "v4"; providerUid: string; provider: string } | { kind: "v3"; providerUid: string; provider: string } | { kind: "malformed"; reason: string };

const PROVIDER = /^[a-z][a-z0-9-]*$/;

/**
 * A v4 key splits at its last `:`, a v3 key at its last `_` (an email may hold `_`, an Idp `sub`
 * may hold either, the provider holds neither). A row is v4 when it says so (`provider` matches
 * the key's suffix), so a v3 uid that happens to contain `:` is not mistaken for a v4 key.
 */
export function keyShape(row: { uuid?: unknown; provider?: unknown; _type?: unknown }): KeyShape {
  const key = row.uuid;
  if (typeof key !== "string" || key.length === 0) return { kind: "malformed", reason: "the key is not a non-empty string" };
  const colon = key.lastIndexOf(":");
  if (colon > 0 && typeof row.provider === "string" && key.slice(colon + 1) === row.provider) {
    return { kind: "v4", providerUid: key.slice(0, colon), provider: row.provider };
  }
  const underscore = key.lastIndexOf("_");
  if (underscore <= 0 || underscore === key.length - 1) {
    return { kind: "malformed", reason: "the key has neither the v4 form <providerUid>:<provider> nor the v3 form <providerUid>_<provider>" };
  }
  const provider = key.slice(underscore + 1);
  const providerUid = key.slice(0, underscore);
  if (!PROVIDER.test(provider)) return { kind: "malformed", reason: `'${provider}' is not a provider name` };
  if (typeof row._type === "string" && row._type !== provider) {
    return { kind: "malformed", reason: `the key names provider '${provider}' but the row's _type is '${row._type}'` };
  }
  if (providerUid.trim() === "") return { kind: "malformed", reason: "the provider uid is empty" };
  return { kind: "v3", providerUid, provider };
}

export function isV4Provider(provider: string): provider is Provider {
  return (V4_PROVIDERS as readonly string[]).includes(provider);
}

/**
 * The v4 key of an identity: emails compare without case; an Idp `sub` is taken as given and
 * keyed with its issuer (lib/auth/idp-keys.ts), issuerless only when no issuer is known.
 */
export function v4Key(provider: Provider, providerUid: string, issuer?: string): string {
  if (provider === "idp" && issuer !== undefined) return idpIdentKey(issuer, providerUid);
  return `${provider === "email" ? normalizeEmail(providerUid) : providerUid}:${provider}`;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A v3 date (ISO string, epoch ms, or a numeric string) as ISO 8601; undefined when unreadable. */
export function isoDate(value: unknown): string | undefined {
  let time: number | undefined;
  if (typeof value === "number") time = value;
  else if (typeof value === "string" && /^\d+$/.test(value)) time = Number(value);
  else if (typeof value === "string") time = Date.parse(value);
  if (time === undefined || !Number.isFinite(time)) return undefined;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
