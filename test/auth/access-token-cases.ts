import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { base64url, SignJWT, UnsecuredJWT } from "jose";
import type { AccessTokenSettings } from "../../lib/auth/access-token-verify.ts";
import { signAccessToken } from "../../lib/auth/access-token.ts";
import type { SigningKeys } from "../../lib/auth/keys.ts";

/**
 * Tokens for the differential table of test/auth/access-token-verify.test.ts: each is what our
 * verifier and jose's jwtVerify must both accept, or both refuse. Built with jose's SignJWT where
 * it will build them, by hand (node:crypto signing over our own segments) where it will not.
 */
export interface TokenCase {
  name: string;
  accepted: boolean;
  token: () => Promise<string> | string;
}

const segment = (value: unknown): string =>
  (value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(typeof value === "string" ? value : JSON.stringify(value))).toString("base64url");

/** A compact JWS over exactly these header and payload bytes, Ed25519-signed by `key`. */
export function handSigned(header: unknown, payload: unknown, key: KeyObject): string {
  const input = `${segment(header)}.${segment(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString("base64url")}`;
}

/** The token's segments, changed by `change`, the signature kept. */
const resegmented = (token: string, change: (parts: string[]) => string[]): string => change(token.split(".")).join(".");

export function tokenCases(keys: SigningKeys, second: KeyObject, settings: AccessTokenSettings): TokenCase[] {
  const now = Math.floor(Date.now() / 1000);
  const ours = keys.signer.key;
  const kid = keys.signer.kid;
  const secondKid = keys.verifiers[1]?.kid as string;
  const claims = { iss: settings.issuer, aud: settings.audience, sub: "user-1", sid: "session-1", jti: "token-1", iat: now, exp: now + 600 };
  const header = { alg: "EdDSA", kid, typ: "at+jwt" };
  const withClaims = (change: Record<string, unknown>, drop: string[] = []) => {
    const changed: Record<string, unknown> = { ...claims, ...change };
    for (const name of drop) delete changed[name];
    return handSigned(header, changed, ours);
  };
  const withHeader = (change: Record<string, unknown>, drop: string[] = [], key = ours) => {
    const changed: Record<string, unknown> = { ...header, ...change };
    for (const name of drop) delete changed[name];
    return handSigned(changed, claims, key);
  };
  const genuine = (jti = "token-1") => signAccessToken(keys, settings, { sub: "user-1", sid: "session-1", jti, iat: now });
  // A genuine token whose signature segment has '-' or '_' in it (Ed25519 is deterministic: vary the jti).
  const withUrlAlphabet = async () => {
    for (let n = 1; ; n++) {
      const token = await genuine(`token-${n}`);
      if (/[-_]/.test(token.split(".")[2] as string)) return token;
    }
  };
  const joseSigned = (protectedHeader: { alg: string; [member: string]: unknown }, key: Parameters<SignJWT["sign"]>[0]) =>
    new SignJWT({ sid: "session-1" })
      .setProtectedHeader(protectedHeader)
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setSubject("user-1")
      .setJti("token-1")
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key);
  const publicX = base64url.decode(keys.jwks.keys[0]?.x as string);
  const foreign = generateKeyPairSync("ed25519").privateKey;
  const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  // Complete claims with one string member holding a byte that is not UTF-8: a lenient decoder would take it.
  const nonUtf8 = Buffer.concat([Buffer.from(JSON.stringify(claims).slice(0, -1)), Buffer.from(',"note":"'), Buffer.from([0xff]), Buffer.from('"}')]);
  const accept = (name: string, token: TokenCase["token"]): TokenCase => ({ name, accepted: true, token });
  const refuse = (name: string, token: TokenCase["token"]): TokenCase => ({ name, accepted: false, token });

  return [
    accept("the signer's own token (signAccessToken, jose's SignJWT)", () => genuine()),
    accept("a token of the set's second key, under its kid (rotation)", () => withHeader({ kid: secondKid }, [], second)),
    accept("typ application/at+jwt (jose normalises it)", () => withHeader({ typ: "application/at+jwt" })),
    accept("typ in capitals", () => withHeader({ typ: "AT+JWT" })),
    accept("aud an array holding ours", () => withClaims({ aud: ["other-app", settings.audience] })),
    accept("iat in the future (jose checks it only under maxTokenAge)", () => withClaims({ iat: now + 3600 })),
    accept("nbf now", () => withClaims({ nbf: now })),
    accept("expiring next second", () => withClaims({ exp: now + 1 })),
    accept("extra claims and header members", () => handSigned({ ...header, cty: "x" }, { ...claims, scope: "read", extra: { nested: [1] } }, ours)),
    accept("crit naming b64 with b64 true (the one extension jose knows)", () => withHeader({ crit: ["b64"], b64: true })),
    accept("b64 false without crit (jose ignores it)", () => withHeader({ b64: false })),
    // jose decodes segments as atob does on Node (no Uint8Array.fromBase64): padding and ASCII
    // whitespace are tolerated. The signature is still over the same header and payload.
    accept("'=' padding on the signature segment", async () => resegmented(await genuine(), ([h, p, s]) => [h as string, p as string, `${s as string}==`])),
    accept("a space inside the signature segment", async () =>
      resegmented(await genuine(), ([h, p, s]) => [h as string, p as string, `${(s as string).slice(0, 40)} ${(s as string).slice(40)}`]),
    ),

    refuse("alg none (jose's UnsecuredJWT)", () =>
      new UnsecuredJWT({ sid: "session-1" })
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setSubject("user-1")
        .setJti("j")
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .encode(),
    ),
    refuse("alg none with our kid and typ, empty signature", () => `${segment({ alg: "none", kid, typ: "at+jwt" })}.${segment(claims)}.`),
    refuse("HS256 keyed with our public key's bytes", () => joseSigned({ alg: "HS256", kid, typ: "at+jwt" }, publicX)),
    refuse("HS256 keyed with our JWK's text", () =>
      joseSigned({ alg: "HS256", kid, typ: "at+jwt" }, new TextEncoder().encode(JSON.stringify(keys.jwks.keys[0]))),
    ),
    refuse("ES256 under our kid", () => joseSigned({ alg: "ES256", kid, typ: "at+jwt" }, p256)),
    refuse("alg Ed25519 (jose's other name for it), our key", () => withHeader({ alg: "Ed25519" })),
    refuse("alg missing", () => withHeader({}, ["alg"])),
    refuse("a foreign Ed25519 key under our kid", () => withHeader({}, [], foreign)),
    refuse("an unknown kid", () => withHeader({ kid: "someone-else" })),
    refuse("a kid that is not a string", () => withHeader({ kid: 7 })),
    refuse("the second key's token under the first key's kid", () => withHeader({}, [], second)),
    refuse("no kid with a set of two keys (jose finds two candidates)", () => withHeader({}, ["kid"])),
    refuse("typ missing", () => withHeader({}, ["typ"])),
    refuse("typ JWT", () => withHeader({ typ: "JWT" })),
    refuse("typ application/jwt", () => withHeader({ typ: "application/jwt" })),
    refuse("typ not a string", () => withHeader({ typ: ["at+jwt"] })),
    refuse("crit naming an unknown extension", () => withHeader({ crit: ["exp"], exp: 1 })),
    refuse("crit naming b64 (true) and an unknown extension", () => withHeader({ crit: ["b64", "exp"], b64: true, exp: 1 })),
    refuse("crit empty", () => withHeader({ crit: [] })),
    refuse("crit a string", () => withHeader({ crit: "b64", b64: true })),
    refuse("crit naming b64 without b64", () => withHeader({ crit: ["b64"] })),
    refuse("crit naming b64 with b64 a string", () => withHeader({ crit: ["b64"], b64: "true" })),
    refuse("crit naming b64 with b64 false (unencoded payload)", () => withHeader({ crit: ["b64"], b64: false })),
    refuse("two segments", async () => resegmented(await genuine(), (parts) => parts.slice(0, 2))),
    refuse("four segments", async () => resegmented(await genuine(), (parts) => [...parts, parts[2] as string])),
    refuse("empty", () => ""),
    refuse("garbage", () => "a.b.c"),
    refuse("'*' in the header segment", async () => resegmented(await genuine(), ([h, p, s]) => [`${h}*`, p as string, s as string])),
    refuse("the signature in base64's alphabet, not base64url's ('+' and '/')", async () =>
      resegmented(await withUrlAlphabet(), ([h, p, s]) => [h as string, p as string, (s as string).replace(/-/g, "+").replace(/_/g, "/")]),
    ),
    refuse("'/' in the payload", async () => resegmented(await genuine(), ([h, p, s]) => [h as string, `/${p as string}`.slice(0, -1), s as string])),
    refuse("a non-ASCII character in the payload", async () => resegmented(await genuine(), ([h, p, s]) => [h as string, `${p as string}é`, s as string])),
    refuse("a signature four bytes short", async () => resegmented(await genuine(), ([h, p, s]) => [h as string, p as string, (s as string).slice(0, -6)])),
    refuse("a signature three bytes too long", async () => resegmented(await genuine(), ([h, p, s]) => [h as string, p as string, `${s as string}AAAA`])),
    refuse("a signature of zeros", async () => resegmented(await genuine(), ([h, p]) => [h as string, p as string, segment(new Uint8Array(64))])),
    refuse("a payload changed under the signature", async () =>
      resegmented(await genuine(), ([h, , s]) => [h as string, segment({ ...claims, sub: "admin" }), s as string]),
    ),
    refuse("a header changed under the signature", async () =>
      resegmented(await genuine(), ([, p, s]) => [segment({ ...header, cty: "x" }), p as string, s as string]),
    ),
    refuse("a payload that is an array", () => handSigned(header, [claims], ours)),
    refuse("a payload that is a string", () => handSigned(header, JSON.stringify("claims"), ours)),
    refuse("a payload that is null", () => handSigned(header, "null", ours)),
    refuse("a payload that is not JSON", () => handSigned(header, "{sub: 1}", ours)),
    refuse("a payload that is not UTF-8", () => handSigned(header, nonUtf8, ours)),
    refuse("a header that is an array", () => handSigned([header], claims, ours)),
    refuse("a header that is not JSON", () => handSigned("{alg: EdDSA}", claims, ours)),
    refuse("another issuer", () => withClaims({ iss: "evil" })),
    refuse("no issuer", () => withClaims({}, ["iss"])),
    refuse("another audience", () => withClaims({ aud: "other-app" })),
    refuse("an audience array without ours", () => withClaims({ aud: ["other-app"] })),
    refuse("an audience that is a number", () => withClaims({ aud: 1 })),
    refuse("no audience", () => withClaims({}, ["aud"])),
    refuse("expired a second ago", () => withClaims({ exp: now - 1 })),
    refuse("expiring this second (exp <= now)", () => withClaims({ exp: now })),
    refuse("exp a string", () => withClaims({ exp: String(now + 600) })),
    refuse("no exp", () => withClaims({}, ["exp"])),
    refuse("nbf next second", () => withClaims({ nbf: now + 1 })),
    refuse("nbf a string", () => withClaims({ nbf: String(now) })),
    refuse("no iat", () => withClaims({}, ["iat"])),
    refuse("iat a string", () => withClaims({ iat: String(now) })),
    refuse("no sub", () => withClaims({}, ["sub"])),
    refuse("no sid", () => withClaims({}, ["sid"])),
    refuse("no jti", () => withClaims({}, ["jti"])),
    refuse("sub a number", () => withClaims({ sub: 1 })),
    refuse("sid a number", () => withClaims({ sid: 1 })),
    refuse("jti null", () => withClaims({ jti: null })),
  ];
}

/** A private key object from a JWK, as a test holds the set's second key. */
export const privateKeyOf = (jwk: object): KeyObject => createPrivateKey({ key: jwk as { kty: string }, format: "jwk" });
