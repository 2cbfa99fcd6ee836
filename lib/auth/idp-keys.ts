import { createHash } from "node:crypto";
import { AuthError } from "./errors.ts";

/**
 * Keys of Idp idents. OpenID Connect makes `sub` unique only within one issuer, so an Idp
 * identity is the pair (issuer, sub) and its key carries both:
 *
 *     <sub>@<issuer tag>:idp      e.g. "248289761001@Xq3v0Y1...:idp"
 *
 * The issuer tag is the SHA-256 of the issuer URL (without a trailing slash), base64url, cut to
 * 22 characters (132 bits): fixed length, so the key splits unambiguously from the right whatever
 * `sub` holds, and short, so the key stays far inside DynamoDB's limits (ID tokens with a `sub`
 * over 255 characters are refused, so a key is at most 255 UTF-16 units of `sub` plus 27
 * characters: under 800 bytes, within both the 2048-byte partition key and the 1024-byte sort key
 * of the `by_user` index). The row also stores the issuer itself (`issuer`). Keys end in `:idp`
 * like every v4 key (`<providerUid>:<provider>`), which the v3 migration reads as v4.
 *
 * Before this, Idp idents were keyed `<sub>:idp` (v3: `<sub>_idp`); see LegacyIdpKeys.
 */
export function normalizeIssuer(issuer: string): string {
  return issuer.replace(/\/+$/, "");
}

export function issuerTag(issuer: string): string {
  return createHash("sha256").update(normalizeIssuer(issuer)).digest("base64url").slice(0, 22);
}

export function idpIdentKey(issuer: string, sub: string): string {
  return `${sub}@${issuerTag(issuer)}:idp`;
}

/** The key Idp idents had before they carried their issuer. */
export function issuerlessIdpKey(sub: string): string {
  return `${sub}:idp`;
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
