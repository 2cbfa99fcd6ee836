import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base64url, SignJWT, UnsecuredJWT } from "jose";
import { applicationSecret } from "../../lib/core/application.ts";
import { authApp, idpLogin } from "./support.ts";

const cookieValue = (setCookie: string): string => (setCookie.split(";")[0] as string).split("=")[1] as string;

describe("access tokens", () => {
  it("carry iss, aud, sub, sid, jti, exp and identify the user without the cookie", async () => {
    const { auth } = authApp();
    const login = await idpLogin(auth);
    const [, payload] = login.access_token.split(".");
    const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: "blog", aud: "blog", sub: login.user.uuid });
    expect(Object.keys(claims).sort()).toEqual(["aud", "exp", "iat", "iss", "jti", "sid", "sub"]);
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);
    expect(login.expires_in).toBeGreaterThan(890);
    expect(await auth.identify({ authorization: `Bearer ${login.access_token}`, cookies: [] })).toMatchObject({ userId: login.user.uuid, via: "bearer" });
    expect(await auth.identify({ cookies: [`session=${cookieValue(login.setCookie)}`] })).toMatchObject({ userId: login.user.uuid, via: "cookie" });
  });

  it("are anonymous when unsigned, HMAC-signed with the public key, expired, foreign or of a revoked session", async () => {
    const { auth } = authApp();
    const login = await idpLogin(auth);
    const user = login.user.uuid as string;
    const sid = JSON.parse(Buffer.from(login.access_token.split(".")[1] as string, "base64url").toString()).sid as string;
    const base = { sid };
    const now = Math.floor(Date.now() / 1000);
    const jwk = (await auth.keys()).jwks.keys[0] as Record<string, string>;
    const unsigned = new UnsecuredJWT(base)
      .setIssuer("blog")
      .setAudience("blog")
      .setSubject(user)
      .setJti("j")
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .encode();
    // alg confusion: an HMAC keyed with the public key's bytes and with the JWK text.
    const hmacWith = (key: Uint8Array) =>
      new SignJWT(base)
        .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
        .setIssuer("blog")
        .setAudience("blog")
        .setSubject(user)
        .setJti("j")
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(key);
    const forged = [await hmacWith(base64url.decode(jwk.x as string)), await hmacWith(new TextEncoder().encode(JSON.stringify(jwk)))];
    const other = generateKeyPairSync("ed25519").privateKey;
    const signWith = (key: Parameters<SignJWT["sign"]>[0], claims: { iss?: string; aud?: string; iat?: number; exp?: number } = {}) =>
      new SignJWT(base)
        .setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", kid: jwk.kid as string })
        .setIssuer(claims.iss ?? "blog")
        .setAudience(claims.aud ?? "blog")
        .setSubject(user)
        .setJti("j")
        .setIssuedAt(claims.iat ?? now)
        .setExpirationTime(claims.exp ?? now + 600)
        .sign(key);
    const ours = (await auth.keys()).signer?.key as KeyObject;
    const cases = {
      unsigned,
      hmacPublicKeyBytes: forged[0] as string,
      hmacJwkText: forged[1] as string,
      foreignKey: await signWith(other),
      expired: await signWith(ours, { iat: now - 2000, exp: now - 1000 }),
      wrongIssuer: await signWith(ours, { iss: "evil" }),
      wrongAudience: await signWith(ours, { aud: "other-app" }),
      garbage: "a.b.c",
    };
    // The genuine article passes, so the refusals below are about what each case changes.
    expect((await auth.identify({ authorization: `Bearer ${await signWith(ours)}`, cookies: [] })).userId).toBe(user);
    for (const [name, token] of Object.entries(cases)) {
      expect({ name, identity: await auth.identify({ authorization: `Bearer ${token}`, cookies: [] }) }).toEqual({ name, identity: {} });
    }
    await auth.sessions.revoke(sid);
    expect(await auth.identify({ authorization: `Bearer ${login.access_token}`, cookies: [] })).toEqual({});
  });

  it("never falls back to the cookie when a bearer token is refused", async () => {
    const { auth } = authApp();
    const login = await idpLogin(auth);
    const cookies = [`session=${cookieValue(login.setCookie)}`];
    expect(await auth.identify({ authorization: "Bearer nonsense", cookies })).toEqual({});
  });

  // Found by the fuzzer: a cookie value that is not valid percent-encoding made decodeURIComponent
  // throw, and every route answered 500 to it. Our cookies are base64url: such a value is no session.
  it("treat a session cookie that is not valid percent-encoding as no session, with the real cookie beside it or not", async () => {
    const { auth } = authApp();
    const login = await idpLogin(auth);
    for (const value of ["%", "%E0%A4%A", `${cookieValue(login.setCookie)}%zz`]) {
      expect(await auth.identify({ cookies: [`session=${value}`] })).toEqual({});
    }
    expect((await auth.identify({ cookies: [`other=%; session=${cookieValue(login.setCookie)}`] })).userId).toBe(login.user.uuid);
  });
});

describe("refresh tokens", () => {
  it("rotate: each use returns a new pair and the used token is spent", async () => {
    const { auth } = authApp();
    const login = await idpLogin(auth);
    const next = await auth.refresh(login.refresh_token);
    expect(next.refresh_token).not.toBe(login.refresh_token);
    expect(next.user.uuid).toBe(login.user.uuid);
    const third = await auth.refresh(next.refresh_token);
    expect(third.refresh_token).not.toBe(next.refresh_token);
    expect((await auth.identify({ authorization: `Bearer ${third.access_token}`, cookies: [] })).userId).toBe(login.user.uuid);
  });

  it("give every one of 50 concurrent uses inside the reuse interval the same new pair", async () => {
    const { app, auth } = authApp();
    const login = await idpLogin(auth);
    const results = await Promise.all(Array.from({ length: 50 }, () => auth.refresh(login.refresh_token)));
    const pairs = new Set(results.map((r) => `${r.access_token} ${r.refresh_token}`));
    expect(pairs.size).toBe(1);
    // Never two live families, nor two live tokens in this one: the used token and its one successor.
    const { refreshShape } = await import("../../lib/auth/tables.ts");
    const family = (JSON.parse(Buffer.from(login.access_token.split(".")[1] as string, "base64url").toString()) as { sid: string }).sid;
    const rows = await app.tableRepository("auth-refresh", refreshShape).findByField("family", [family]);
    expect(rows.map((r) => (r.usedAt === undefined ? "live" : "used")).sort()).toEqual(["live", "used"]);
    // The family did not fork: the one successor keeps working.
    const after = await auth.refresh(results[0]?.refresh_token as string);
    expect(after.user.uuid).toBe(login.user.uuid);
  });

  it("revoke the whole family (and its session) when a used token comes back after the interval", async () => {
    const { auth } = authApp({ authentication: { type: "Framework/Authentication", refresh: { reuseInterval: 0 } } });
    const login = await idpLogin(auth);
    const next = await auth.refresh(login.refresh_token);
    await new Promise((r) => setTimeout(r, 5));
    await expect(auth.refresh(login.refresh_token)).rejects.toMatchObject({ status: 401, reason: "REFRESH_TOKEN_REUSED" });
    // The successor, the cookie and the access tokens of that login are all dead now.
    await expect(auth.refresh(next.refresh_token)).rejects.toMatchObject({ status: 401, reason: "INVALID_REFRESH_TOKEN" });
    expect(await auth.identify({ authorization: `Bearer ${next.access_token}`, cookies: [] })).toEqual({});
    expect(await auth.identify({ cookies: [`session=${cookieValue(login.setCookie)}`] })).toEqual({});
  });

  it("refuse unknown and malformed tokens, and stop after logout", async () => {
    const { auth } = authApp();
    await expect(auth.refresh("x".repeat(43))).rejects.toMatchObject({ reason: "INVALID_REFRESH_TOKEN" });
    await expect(auth.refresh("short")).rejects.toMatchObject({ reason: "INVALID_REFRESH_TOKEN" });
    const login = await idpLogin(auth);
    const identity = await auth.identify({ authorization: `Bearer ${login.access_token}`, cookies: [] });
    await auth.logout(identity);
    await expect(auth.refresh(login.refresh_token)).rejects.toMatchObject({ reason: "INVALID_REFRESH_TOKEN" });
    // The access token (verified without a lookup) lives on until it expires; the cookie does not.
    expect((await auth.identify({ authorization: `Bearer ${login.access_token}`, cookies: [] })).userId).toBe(login.user.uuid);
    expect(await auth.identify({ cookies: [`session=${cookieValue(login.setCookie)}`] })).toEqual({});
  });

  it("are stored hashed: the table holds no usable token", async () => {
    const { app, auth } = authApp();
    const login = await idpLogin(auth);
    const rows = await app.tableRepository("auth-refresh", (await import("../../lib/auth/tables.ts")).refreshShape).list({ limit: 1000 });
    const text = JSON.stringify(rows.items);
    expect(text).not.toContain(login.refresh_token);
    expect(text).not.toContain(cookieValue(login.setCookie));
  });
});

describe("the application secret", () => {
  it("has no built-in fallback outside serverless offline, whatever the test flags say", () => {
    const lambda = { AWS_LAMBDA_FUNCTION_NAME: "blog-prod-rest", AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" };
    for (const flags of [{}, { NODE_ENV: "test" }, { VITEST: "true" }, { NODE_ENV: "test", VITEST: "true", ALLOW_TEST_USER: "true" }, { IS_OFFLINE: "true" }]) {
      expect(() => applicationSecret({ ...lambda, ...flags, APP_SECRET: "unset" })).toThrow(/APP_SECRET is not set/);
      // A Lambda runtime reads it from the secret store at cold start, never from its environment.
      expect(() => applicationSecret({ ...lambda, ...flags, APP_SECRET: "s".repeat(48) })).toThrow(/APP_SECRET is not set.*--param appSecretParameter=/);
    }
    expect(() => applicationSecret({ NODE_ENV: "test", VITEST: "true" })).toThrow(/APP_SECRET is not set/);
    expect(applicationSecret({ APP_SECRET: "s".repeat(48) })).toBe("s".repeat(48));
  });
});
