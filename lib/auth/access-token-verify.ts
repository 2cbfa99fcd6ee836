import { verify } from "node:crypto";
import { decodeSegment, jsonObject } from "./access-token-decode.ts";
import { SIGNING_ALG, type AccessKeys } from "./keys.ts";

/*
 * Our own access tokens verified on node:crypto rather than jose's jwtVerify: every function that
 * identifies callers carries this, and jose's verifying half was bytes of each of their bundles,
 * parsed at every cold start (test/bench/bundle-contents.test.ts keeps jose out of them).
 * It verifies one token shape only (compact JWS, EdDSA, Ed25519, typ at+jwt) and takes and
 * refuses exactly what `jwtVerify` did with the options we gave it
 * (test/auth/access-token-verify.test.ts holds both to one table). Signing stays on jose
 * (./access-token.ts), in the functions that issue credentials only.
 */

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
  /** Seconds; 900 (15 minutes): how long a token outlives a logout, since it is verified without a lookup. */
  lifetime: number;
}

/** jose's `typ` comparison: case-insensitive, `at+jwt` standing for `application/at+jwt`. */
const TYP = "application/at+jwt";
const normalizedTyp = (typ: string): string => (typ.includes("/") ? typ.toLowerCase() : `application/${typ.toLowerCase()}`);

/**
 * `crit` as jose takes it: absent, or naming only `b64` (the one extension it knows) with `b64`
 * in the header as a boolean, and then the payload must be base64url-encoded (`b64: true`).
 * A `b64` not named in `crit` is ignored, as jose ignores it.
 */
function acceptableCrit(header: Record<string, unknown>): boolean {
  const { crit } = header;
  if (crit === undefined) return true;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => name !== "b64")) return false;
  return Object.hasOwn(header, "b64") && header.b64 === true;
}

function acceptableHeader(header: Record<string, unknown>): boolean {
  return header.alg === SIGNING_ALG && acceptableCrit(header) && typeof header.typ === "string" && normalizedTyp(header.typ) === TYP;
}

/**
 * The verifying key as jose's local JWK set chose it: the one key whose kid the header names, or
 * the only key of the set when the header names none. No key, or two, is a refusal.
 */
function verifierFor(keys: AccessKeys, kid: unknown): AccessKeys["verifiers"][number] | undefined {
  const candidates = keys.verifiers.filter((candidate) => kid === undefined || candidate.kid === kid);
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** What jwtVerify checked of the claims set, with the current second as jose computes it. */
function acceptableClaims(claims: Record<string, unknown>, settings: AccessTokenSettings, now: number): claims is Record<string, unknown> & AccessClaims {
  for (const name of ["iss", "aud", "sub", "sid", "jti", "iat", "exp"]) if (!Object.hasOwn(claims, name)) return false;
  const { aud, nbf } = claims;
  if (claims.iss !== settings.issuer) return false;
  if (typeof aud === "string" ? aud !== settings.audience : !Array.isArray(aud) || !aud.includes(settings.audience)) return false;
  // jose refuses an iat in the future only under maxTokenAge, which we never set: iat is only typed.
  if (typeof claims.iat !== "number" || typeof claims.exp !== "number" || claims.exp <= now) return false;
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > now)) return false;
  return typeof claims.sub === "string" && typeof claims.sid === "string" && typeof claims.jti === "string";
}

/**
 * The claims of an acceptable token, else undefined. Only EdDSA with one of our keys is accepted:
 * unsigned (`alg: none`), HMAC keyed with the public key, other issuers and audiences, expired or
 * incomplete tokens are all refused here without any I/O.
 */
export async function verifyAccessToken(keys: AccessKeys, settings: AccessTokenSettings, token: string): Promise<AccessClaims | undefined> {
  try {
    const parts = token.split(".");
    if (parts.length !== 3) return undefined;
    const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
    const headerBytes = decodeSegment(encodedHeader);
    const header = headerBytes && jsonObject(headerBytes);
    if (!header || !acceptableHeader(header)) return undefined;
    const verifier = verifierFor(keys, header.kid);
    const payloadBytes = decodeSegment(encodedPayload);
    const signature = decodeSegment(encodedSignature);
    if (!verifier || !payloadBytes || signature?.length !== 64) return undefined;
    // The signature is over the segments as sent (ASCII once they decoded). A public check needs
    // no constant-time compare: the signature is not a secret and the key only verifies.
    if (!verify(null, Buffer.from(`${encodedHeader}.${encodedPayload}`, "latin1"), verifier.key, signature)) return undefined;
    const claims = jsonObject(payloadBytes);
    if (!claims || !acceptableClaims(claims, settings, Math.floor(Date.now() / 1000))) return undefined;
    return { sub: claims.sub, sid: claims.sid, jti: claims.jti, iat: claims.iat, exp: claims.exp };
  } catch {
    return undefined;
  }
}
