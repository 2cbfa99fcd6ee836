import { createHash, timingSafeEqual } from "node:crypto";
import type { JWTPayload } from "jose";
import { keysUnavailable, type IdTokenKeys } from "./id-token-keys.ts";
import { IdpRefusal } from "./refusal.ts";

export interface IdTokenExpectations {
  issuer: string;
  /** Accepted `aud` values: the client id, plus `audiences` for token login. */
  audiences: string[];
  /** The nonce of the browser flow; token login has none. */
  nonce?: string;
  hostedDomain?: string;
  allowedEmailDomains?: string[];
  /** `allowUnverifiedEmailDomains`: an unverified address may pass `allowedEmailDomains`. */
  allowUnverifiedEmailDomains?: boolean;
}

export interface VerifiedClaims extends JWTPayload {
  sub: string;
  email?: string;
  email_verified?: boolean | string;
  name?: string;
  hd?: string;
}

function sameText(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Verifies an ID token against the provider's published keys (JWKS, through aws-jwt-verify), then
 * the claims this service relies on. Every refusal is an IdpRefusal; an unreachable JWKS is
 * PROVIDER_UNAVAILABLE.
 */
export async function verifyIdToken(token: string, keys: IdTokenKeys, expect: IdTokenExpectations): Promise<VerifiedClaims> {
  if (typeof token !== "string" || token.length === 0 || token.length > 16_384) throw new IdpRefusal("ID_TOKEN_INVALID", "not an ID token");
  if (keys.issuer !== expect.issuer) throw new IdpRefusal("ID_TOKEN_INVALID", "keys of another issuer");
  let payload: JWTPayload;
  try {
    payload = await keys.verify(token, expect.audiences);
  } catch (error) {
    if (keysUnavailable(error)) throw new IdpRefusal("PROVIDER_UNAVAILABLE", `the provider's keys could not be fetched (${(error as Error).name})`);
    throw new IdpRefusal("ID_TOKEN_INVALID", (error as Error).name);
  }
  // Required of every ID token (OpenID Connect Core 2): aws-jwt-verify checks them only when present.
  for (const claim of ["sub", "iat", "exp"] as const) {
    if (payload[claim] === undefined) throw new IdpRefusal("ID_TOKEN_INVALID", `missing ${claim}`);
  }
  const claims = payload as VerifiedClaims;
  if (typeof claims.sub !== "string" || claims.sub.length === 0 || claims.sub.length > 255) throw new IdpRefusal("ID_TOKEN_INVALID", "bad sub");
  if (expect.nonce !== undefined && (typeof claims.nonce !== "string" || !sameText(claims.nonce, expect.nonce))) {
    throw new IdpRefusal("ID_TOKEN_INVALID", "nonce mismatch");
  }
  if (expect.hostedDomain !== undefined && (typeof claims.hd !== "string" || claims.hd.toLowerCase() !== expect.hostedDomain.toLowerCase())) {
    throw new IdpRefusal("HOSTED_DOMAIN_REFUSED", "hd claim does not match hostedDomain");
  }
  if (claims.email !== undefined && typeof claims.email !== "string") throw new IdpRefusal("ID_TOKEN_INVALID", "bad email claim");
  if (expect.allowedEmailDomains !== undefined) {
    const domain = claims.email?.trim().toLowerCase().split("@")[1];
    if (!domain || !expect.allowedEmailDomains.some((d) => d.toLowerCase() === domain)) {
      throw new IdpRefusal("EMAIL_DOMAIN_NOT_ALLOWED", "email domain not in allowedEmailDomains");
    }
    // The domain of an address nobody checked proves nothing about who holds the account.
    if (!expect.allowUnverifiedEmailDomains && !emailVerified(claims))
      throw new IdpRefusal("EMAIL_NOT_VERIFIED", "allowedEmailDomains needs an email the provider marks verified");
  }
  return claims;
}

/** `email_verified` is a boolean in the standard; some issuers (Cognito) send the string "true". */
export function emailVerified(claims: VerifiedClaims): boolean {
  return claims.email_verified === true || claims.email_verified === "true";
}
