import { calculateJwkThumbprint, createLocalJWKSet, jwtVerify, type JWK } from "jose";
import { afterAll, describe, expect, it, vi } from "vitest";
import { verifyAccessToken, type AccessClaims, type AccessTokenSettings } from "../../lib/auth/access-token-verify.ts";
import { generateSigningJwk, jwkThumbprint, loadSigningKeys, type SigningKeys } from "../../lib/auth/keys.ts";
import { handSigned, privateKeyOf, tokenCases } from "./access-token-cases.ts";

const settings: AccessTokenSettings = { issuer: "blog", audience: "blog", lifetime: 900 };

/** The verifier this one replaces, as it was: jose's jwtVerify over the set's public keys. */
async function joseVerify(keys: SigningKeys, token: string): Promise<AccessClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: keys.jwks.keys as JWK[] }), {
      algorithms: ["EdDSA"],
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

// Date pinned half-way through a second, for jose and ours alike, so that the rows on the exp and
// nbf boundaries (this second, the next) are exact rather than racing the clock.
vi.useFakeTimers({ toFake: ["Date"], now: 1_800_000_000_500 });
afterAll(() => vi.useRealTimers());

const first = generateSigningJwk();
const second = generateSigningJwk();
// The second key names its kid; the first is known by its thumbprint, as a key given without one.
const secondWithKid = { ...second, kid: "rotated-in" };
const pair = await loadSigningKeys(JSON.stringify({ keys: [first, secondWithKid] }));
const single = await loadSigningKeys(JSON.stringify(first));
const cases = tokenCases(pair, privateKeyOf(secondWithKid), settings);

describe("access tokens verified without jose, against jose's jwtVerify", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s: same verdict as jwtVerify", async (_name, { accepted, token }) => {
    const text = await token();
    const ours = await verifyAccessToken(pair, settings, text);
    const theirs = await joseVerify(pair, text);
    // Both, so that a case cannot pass by being broken: it is refused (or taken) by jose too.
    expect({ ours: ours !== undefined, jose: theirs !== undefined }).toEqual({ ours: accepted, jose: accepted });
    expect(ours).toEqual(theirs);
  });

  it("take a token with no kid when the set holds one key, as jose's local set does", async () => {
    const token = handSigned(
      { alg: "EdDSA", typ: "at+jwt" },
      { iss: "blog", aud: "blog", sub: "u", sid: "s", jti: "j", iat: 1, exp: 4_000_000_000 },
      single.signer.key,
    );
    expect(await verifyAccessToken(single, settings, token)).toEqual({ sub: "u", sid: "s", jti: "j", iat: 1, exp: 4_000_000_000 });
    expect(await joseVerify(single, token)).toEqual(await verifyAccessToken(single, settings, token));
    // The same token against two keys has two candidates: both refuse it.
    expect([await verifyAccessToken(pair, settings, token), await joseVerify(pair, token)]).toEqual([undefined, undefined]);
  });

  it("carry the claims jose's SignJWT signed, the signer's kid in the header", async () => {
    const genuine = cases.find((c) => c.name.startsWith("the signer's own token")) as (typeof cases)[number];
    const token = await genuine.token();
    const claims = await verifyAccessToken(pair, settings, token);
    const payload = JSON.parse(Buffer.from(token.split(".")[1] as string, "base64url").toString()) as Record<string, unknown>;
    expect(claims).toEqual({ sub: payload.sub, sid: payload.sid, jti: payload.jti, iat: payload.iat, exp: payload.exp });
    expect(JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString())).toEqual({ alg: "EdDSA", kid: pair.signer.kid, typ: "at+jwt" });
  });
});

describe("signing keys loaded without jose", () => {
  it("name a key given without kid by its RFC 7638 thumbprint, equal to jose's", async () => {
    for (const jwk of [first, second, generateSigningJwk(), generateSigningJwk()]) {
      const { d: _private, ...publicPart } = jwk;
      expect(jwkThumbprint(jwk)).toBe(await calculateJwkThumbprint(publicPart as JWK));
    }
    expect(pair.jwks.keys.map((k) => k.kid)).toEqual([await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: first.x }), "rotated-in"]);
    expect(pair.signer.kid).toBe(pair.jwks.keys[0]?.kid);
  });

  it("serve the JWKS exactly as before: public members only, in the same order", () => {
    const served = JSON.stringify(pair.jwks);
    expect(served).toBe(
      JSON.stringify({
        keys: [
          { kty: "OKP", crv: "Ed25519", x: first.x, kid: pair.signer.kid, alg: "EdDSA", use: "sig" },
          { kty: "OKP", crv: "Ed25519", x: second.x, kid: "rotated-in", alg: "EdDSA", use: "sig" },
        ],
      }),
    );
    expect(served).not.toContain(first.d);
    expect(served).not.toContain(second.d);
  });

  it("refuse a key whose x is not the public half of its d, and a kid that is not a string", async () => {
    await expect(loadSigningKeys(JSON.stringify({ ...first, x: second.x }))).rejects.toThrow(/unusable Ed25519 key/);
    await expect(loadSigningKeys(JSON.stringify({ ...first, kid: 7 }))).rejects.toThrow(/kid must be a string/);
    await expect(loadSigningKeys(JSON.stringify({ keys: [] }))).rejects.toThrow(/holds no key/);
  });
});
