import { createHash } from "node:crypto";
import { AuthError } from "./errors.ts";

/**
 * Keys of Idp idents. OpenID Connect makes `sub` unique only within one issuer, so an Idp
 * identity is the pair (issuer, sub) and its key carries both:
 *
 *     <escaped sub>@<issuer tag>:idp      e.g. "248289761001@Xq3v0Y1...:idp"
 *
 * The `sub` is escaped (`%` as `%25`, `@` as `%40`, `:` as `%3A`, nothing else), so the escaped
 * part holds no `@` and the key splits at its last `@` into exactly one (sub, tag) whatever
 * characters an issuer puts in a `sub`: no chosen `sub` can spell another identity's key. A `sub`
 * without those three characters (nearly all) keys as it did before escaping, so those rows are
 * found where they are; an earlier row of a `sub` that holds one is found under its unescaped key
 * (`unescapedIdpKey`, read only when it stores that very issuer and sub) and moved, and
 * `webda auth migrate` moves the rest.
 *
 * The issuer tag is the SHA-256 of the issuer URL (without a trailing slash), base64url, cut to
 * 22 characters (132 bits): fixed length and short, so the key stays far inside DynamoDB's limits:
 * ID tokens with a `sub` over 255 characters are refused, a UTF-16 unit is at most 3 bytes of
 * UTF-8 and an escape is 3 bytes for one character, so a key is at most 765 + 27 bytes, within
 * both the 2048-byte partition key and the 1024-byte sort key of the `by_user` index. The row
 * stores the issuer itself (`issuer`) and every read compares it, so two issuers whose tags met
 * would still never share a row. Keys end in `:idp` like every v4 key (`<providerUid>:<provider>`),
 * which the v3 migration reads as v4.
 *
 * Before this, Idp idents were keyed `<sub>:idp` (v3: `<sub>_idp`): such a row is taken for
 * legacy only by `legacyIdpSub`, the one rule the login's upgrade and the migration share.
 */
export function normalizeIssuer(issuer: string): string {
  return issuer.replace(/\/+$/, "");
}

export function issuerTag(issuer: string): string {
  return createHash("sha256").update(normalizeIssuer(issuer)).digest("base64url").slice(0, 22);
}

const ESCAPES: Record<string, string> = { "%": "%25", "@": "%40", ":": "%3A" };
const UNESCAPES: Record<string, string> = { "%25": "%", "%40": "@", "%3A": ":" };

function escapeSub(sub: string): string {
  return sub.replace(/[%@:]/g, (c) => ESCAPES[c] as string);
}

export function idpIdentKey(issuer: string, sub: string): string {
  return `${escapeSub(sub)}@${issuerTag(issuer)}:idp`;
}

/** The key an Idp ident had before its `sub` was escaped: the same as today's unless the `sub` holds `%`, `@` or `:`. */
export function unescapedIdpKey(issuer: string, sub: string): string {
  return `${sub}@${issuerTag(issuer)}:idp`;
}

const TAG = /^[A-Za-z0-9_-]{22}$/;

/** The parts of a current ident key (`identKey`): undefined for anything else (legacy keys included). */
export function decodeIdentKey(
  key: string,
): { provider: "email"; providerUid: string } | { provider: "idp"; issuerTag: string; providerUid: string } | undefined {
  if (key.endsWith(":email")) return { provider: "email", providerUid: key.slice(0, -":email".length) };
  if (!key.endsWith(":idp")) return undefined;
  const body = key.slice(0, -":idp".length);
  const at = body.lastIndexOf("@");
  const escaped = body.slice(0, at);
  const tag = body.slice(at + 1);
  if (at < 0 || !TAG.test(tag) || /[@:]/.test(escaped) || /%(?!25|40|3A)/.test(escaped)) return undefined;
  return { provider: "idp", issuerTag: tag, providerUid: escaped.replace(/%(25|40|3A)/g, (e) => UNESCAPES[e] as string) };
}

/** The key Idp idents had before they carried their issuer. */
export function issuerlessIdpKey(sub: string): string {
  return `${sub}:idp`;
}

/** What a row holds of the fields that say whose identity it is. */
export interface IdentFields {
  uuid?: unknown;
  provider?: unknown;
  providerUid?: unknown;
  issuer?: unknown;
  _type?: unknown;
}

/**
 * The `sub` of an Idp ident stored without its issuer (early v4 `<sub>:idp` with `provider` and
 * `providerUid`, or v3 `<sub>_idp`), or undefined for any other row. The login's lazy upgrade
 * and the migration decide by this alone: a row that names an issuer is never legacy, whatever
 * its key reads like, so no `sub` chosen to spell an issuer-keyed key can take that row.
 */
export function legacyIdpSub(row: IdentFields): string | undefined {
  if (row.issuer !== undefined || typeof row.uuid !== "string") return undefined;
  if (row.uuid.endsWith(":idp"))
    return row.provider === "idp" && typeof row.providerUid === "string" && row.uuid === issuerlessIdpKey(row.providerUid) ? row.providerUid : undefined;
  const v3 = row.uuid.endsWith("_idp") && row.uuid.length > "_idp".length && (row._type === "idp" || row._type === undefined);
  return v3 ? row.uuid.slice(0, -"_idp".length) : undefined;
}

/** Whether a row is the Idp ident of exactly this issuer and `sub`. */
export function isIdpIdentOf(row: IdentFields, issuer: string, sub: string): boolean {
  return row.provider === "idp" && row.issuer === normalizeIssuer(issuer) && row.providerUid === sub;
}

/** The issuers of the configured Idp services (their `issuer` option), normalized and distinct. */
export function configuredIssuers(services: readonly { service: unknown }[]): string[] {
  const issuers = services.flatMap(({ service }) => {
    const candidate = service as { providerName?: unknown; options?: { issuer?: unknown } };
    return candidate.providerName === "idp" && typeof candidate.options?.issuer === "string" ? [normalizeIssuer(candidate.options.issuer)] : [];
  });
  return [...new Set(issuers)];
}

/** The migration that settles issuerless keys, named in every refusal. */
export const IDP_MIGRATION = "`webda auth migrate` (with only the Idp service that issued these identities configured)";

/**
 * An issuerless Idp ident (`<sub>:idp`, or v3's `<sub>_idp`) while several Idp services are
 * configured: nothing says which issuer it came from, and guessing would let the same `sub` at
 * another issuer into its account, so the login is refused until the migration assigns it.
 */
export function migrationRequired(): AuthError {
  return new AuthError(
    409,
    "IDENT_MIGRATION_REQUIRED",
    `This identity was stored without its issuer and several Idp services are configured: the operator must run ${IDP_MIGRATION}`,
  );
}
