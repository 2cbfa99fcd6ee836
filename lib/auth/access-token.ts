import { SignJWT } from "jose";
import type { AccessTokenSettings } from "./access-token-verify.ts";
import { SIGNING_ALG, type SigningKeys } from "./keys.ts";

// The signing half, on jose: only the functions that issue credentials (lib/auth/service.ts)
// import it. Verifying is ./access-token-verify.ts, which keeps jose out of every other bundle.

/**
 * Signs an access JWT. Ed25519 signatures are deterministic: the same claims give the same token,
 * which is what lets concurrent refreshes inside the reuse interval all receive one pair.
 */
export async function signAccessToken(
  keys: SigningKeys,
  settings: AccessTokenSettings,
  claims: { sub: string; sid: string; jti: string; iat: number },
): Promise<string> {
  return new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: keys.signer.kid, typ: "at+jwt" })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.sub)
    .setJti(claims.jti)
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.iat + settings.lifetime)
    .sign(keys.signer.key);
}
