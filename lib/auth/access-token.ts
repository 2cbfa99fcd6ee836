import { jwtVerify, SignJWT } from "jose";
import { SIGNING_ALG, type SigningKeys } from "./keys.ts";

export interface AccessClaims {
  sub: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface AccessTokenSettings {
  issuer: string;
  audience: string;
  /** Seconds; 900 (15 minutes, spec 8). */
  lifetime: number;
}

/**
 * Signs an access JWT. Ed25519 signatures are deterministic: the same claims give the same token,
 * which is what lets concurrent refreshes inside the reuse interval all receive one pair.
 */
export async function signAccessToken(keys: SigningKeys, settings: AccessTokenSettings, claims: { sub: string; sid: string; jti: string; iat: number }): Promise<string> {
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

/**
 * The claims of an acceptable token, else undefined. Only EdDSA with one of our keys is accepted:
 * unsigned (`alg: none`), HMAC keyed with the public key, other issuers and audiences, expired or
 * incomplete tokens are all refused here without any I/O.
 */
export async function verifyAccessToken(keys: SigningKeys, settings: AccessTokenSettings, token: string): Promise<AccessClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, keys.getKey, {
      algorithms: [SIGNING_ALG],
      issuer: settings.issuer,
      audience: settings.audience,
      typ: "at+jwt",
      requiredClaims: ["sub", "sid", "jti", "iat", "exp"],
    });
    if (typeof payload.sub !== "string" || typeof payload.sid !== "string" || typeof payload.jti !== "string") return undefined;
    return { sub: payload.sub, sid: payload.sid, jti: payload.jti, iat: payload.iat as number, exp: payload.exp as number };
  } catch {
    return undefined;
  }
}
