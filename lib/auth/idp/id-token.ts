import { createHash, timingSafeEqual } from "node:crypto";
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { IdpRefusal } from "./refusal.ts";

/** Asymmetric algorithms only: an HMAC "signed" with a public key, or `none`, never verifies. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

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

function unreachable(error: unknown): boolean {
  return error instanceof errors.JWKSTimeout || (error instanceof TypeError && /fetch/i.test(error.message)) || (error as { code?: string }).code === "ERR_JWKS_INVALID";
}

/**
 * Verifies an ID token against the provider's published keys (JWKS), then the claims this service
 * relies on. Every refusal is an IdpRefusal; an unreachable JWKS is PROVIDER_UNAVAILABLE.
 */
export async function verifyIdToken(token: string, keys: JWTVerifyGetKey, expect: IdTokenExpectations): Promise<VerifiedClaims> {
  if (typeof token !== "string" || token.length === 0 || token.length > 16_384) throw new IdpRefusal("ID_TOKEN_INVALID", "not an ID token");
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: expect.issuer,
      audience: expect.audiences,
      algorithms: ALGORITHMS,
      requiredClaims: ["sub", "iat", "exp"],
      clockTolerance: 30,
    }));
  } catch (error) {
    if (unreachable(error)) throw new IdpRefusal("PROVIDER_UNAVAILABLE", `the provider's keys could not be fetched (${(error as Error).name})`);
    throw new IdpRefusal("ID_TOKEN_INVALID", (error as { code?: string }).code ?? (error as Error).name);
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
    if (!expect.allowUnverifiedEmailDomains && !emailVerified(claims)) throw new IdpRefusal("EMAIL_NOT_VERIFIED", "allowedEmailDomains needs an email the provider marks verified");
  }
  return claims;
}

/** `email_verified` is a boolean in the standard; some issuers (Cognito) send the string "true". */
export function emailVerified(claims: VerifiedClaims): boolean {
  return claims.email_verified === true || claims.email_verified === "true";
}
