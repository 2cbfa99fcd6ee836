import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app/index.ts";
import type { Application } from "../../lib/core/application.ts";
import type { Context } from "../../lib/core/context.ts";
import { DomainError } from "../../lib/core/errors.ts";
import { Service } from "../../lib/core/service.ts";
import { idpHandler } from "../../lib/auth/idp/handler.ts";
import { IdpProvider, type IdpFetch } from "../../lib/auth/idp/provider.ts";
import type { LoginResult, ProviderIdentity } from "../../lib/auth/idp/seam.ts";
import { MemoryUsedStates } from "../../lib/auth/idp/used-states.ts";
import { startDevIdp, type DevIdp } from "../../lib/local/dev-idp/server.ts";
import { CookieJar } from "../support/cookie-jar.ts";
import { callIdp, forgeIdToken, signInAtProvider, unsignedIdToken } from "./idp-support.ts";

/**
 * The Idp provider in-process against the real local OpenID provider (oidc-provider on a free
 * port) and the real openid-client/jose: every check of the browser flow and of token login, up to
 * the seam of lib/auth/CONTRACT.md. The authentication service behind the seam is recorded here
 * (what the provider hands it is the contract under test); the e2e file runs the real one.
 */
const APP = "https://app.test";
const SECRET = "test-client-secret";

class RecordingAuth extends Service {
  static override readonly type = "RecordingAuth";
  readonly calls: { identity: ProviderIdentity; options: { trustEmailVerification: boolean; linkTo?: string } }[] = [];

  async loginWithProvider(_ctx: Context, identity: ProviderIdentity, options: { trustEmailVerification: boolean; linkTo?: string }): Promise<LoginResult> {
    this.calls.push({ identity, options });
    if (identity.email === "taken@example.com") throw Object.assign(new DomainError(409, "CONFLICT", "An account already uses this email"), { reason: "ACCOUNT_EXISTS" });
    return { user: { uuid: `u-${identity.providerUid}` }, access_token: "at", token_type: "Bearer", expires_in: 900, refresh_token: "rt", setCookie: "session=s1; Path=/; HttpOnly; SameSite=Lax; Secure" };
  }
}

let idp: DevIdp;
let dir: string;
let keyFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "idp-flow-"));
  keyFile = join(dir, "key.json");
  idp = await startDevIdp({ port: 0, client: { id: "test-client", secret: SECRET, redirectUris: [`${APP}/auth/idp/callback`] }, keyFile });
});

afterAll(async () => {
  await idp?.close();
  await rm(dir, { recursive: true, force: true });
});

function setup(options: Record<string, unknown> = {}, fetchOverride?: IdpFetch) {
  const app: Application = createApp({
    serviceTypes: [IdpProvider, RecordingAuth],
    services: {
      auth: { type: "RecordingAuth" },
      idp: {
        type: "Framework/IdpProvider",
        issuer: idp.issuer,
        clientId: "test-client",
        authorized_uris: [`${APP}/allowed`],
        redirects: { success: `${APP}/welcome`, failure: `${APP}/failed?from=idp` },
        ...options,
      },
    },
  });
  const provider = app.service("idp")?.service as IdpProvider;
  provider.useRuntime({ env: { IDP_CLIENT_SECRET: SECRET }, usedStates: new MemoryUsedStates(), ...(fetchOverride ? { fetch: fetchOverride } : {}) });
  const auth = app.service("auth")?.service as RecordingAuth;
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  const bus = app.events as unknown as { onEvent?: (name: string, l: (e: { name: string; payload: Record<string, unknown> }) => void) => void };
  bus.onEvent?.("*", (e) => events.push(e));
  return { app, auth, handler: idpHandler(app), events };
}

type Setup = ReturnType<typeof setup>;

async function start(s: Setup, jar: CookieJar, redirect?: string) {
  const url = `${APP}/auth/idp${redirect === undefined ? "" : `?redirect=${encodeURIComponent(redirect)}`}`;
  const started = await callIdp(s.handler, "GET", url, { jar });
  expect(started.status).toBe(302);
  return started.location ?? "";
}

async function browserFlow(s: Setup, username: string, redirect?: string) {
  const jar = new CookieJar();
  const authorization = await start(s, jar, redirect);
  const callback = await signInAtProvider(jar, authorization, username);
  const done = await callIdp(s.handler, "GET", callback, { jar });
  return { jar, authorization, callback, done };
}

function reason(location: string | undefined): string | null {
  return new URL(location ?? "http://x").searchParams.get("reason");
}

describe("GET /auth/idp (start)", () => {
  it("sends the browser to the provider with PKCE S256, nonce and state, keeping them in the sealed Idp cookie", async () => {
    const s = setup();
    const jar = new CookieJar();
    const location = await start(s, jar);
    const url = new URL(location);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("nonce")).toBeTruthy();
    expect(url.searchParams.get("state")).toBeTruthy();
    expect(url.searchParams.get("scope")).toBe("openid email profile");
    expect(url.searchParams.get("redirect_uri")).toBe(`${APP}/auth/idp/callback`);
    const sealed = jar.get("app.test", "sessionIdp") ?? "";
    // A JWE: nothing of the flow (verifier, nonce, state, target) readable by the client.
    expect(sealed.split(".")).toHaveLength(5);
    for (const secret of [url.searchParams.get("nonce"), url.searchParams.get("state")]) expect(sealed).not.toContain(secret);
  });

  it("ignores the Referer and uses redirects.success without an authorized redirect", async () => {
    const s = setup();
    const jar = new CookieJar();
    const started = await callIdp(s.handler, "GET", `${APP}/auth/idp`, { jar, headers: { referer: `${APP}/allowed/from-referer` } });
    const callback = await signInAtProvider(jar, started.location ?? "", "alice");
    const done = await callIdp(s.handler, "GET", callback, { jar });
    expect(done.location).toBe(`${APP}/welcome`);
  });
});

describe("GET /auth/idp/callback", () => {
  it("completes the flow: the verified identity goes to the seam, the session cookie is set, the state cookie cleared", async () => {
    const s = setup();
    const { done } = await browserFlow(s, "alice", `${APP}/allowed/page?x=1`);
    expect(done.status).toBe(302);
    expect(done.location).toBe(`${APP}/allowed/page?x=1`);
    expect(done.cookies).toContain("session=s1; Path=/; HttpOnly; SameSite=Lax; Secure");
    expect(done.cookies.find((c) => c.startsWith("sessionIdp="))).toMatch(/^sessionIdp=; Path=\/auth\/idp; Max-Age=0/);
    const call = s.auth.calls.at(-1);
    expect(call?.identity).toMatchObject({ provider: "idp", providerUid: "demo-alice", email: "alice@example.com", emailVerified: true, profile: { name: "Alice Demo" } });
    expect(call?.identity.tokens).toMatchObject({ token_type: expect.stringMatching(/bearer/i) });
    expect(typeof call?.identity.tokens?.id_token).toBe("string");
    expect(typeof call?.identity.tokens?.access_token).toBe("string");
    expect(call?.options).toEqual({ trustEmailVerification: true });
  });

  it("passes email_verified false through, and trustEmailVerification as configured", async () => {
    const s = setup({ trustEmailVerification: false });
    await browserFlow(s, "bob");
    expect(s.auth.calls.at(-1)).toMatchObject({ identity: { providerUid: "demo-bob", emailVerified: false }, options: { trustEmailVerification: false } });
  });

  it("refuses an account outside hostedDomain and an email outside allowedEmailDomains", async () => {
    const s = setup({ hostedDomain: "example.com", allowedEmailDomains: ["example.com"] });
    const noHd = await browserFlow(s, "carol");
    expect(noHd.done.location).toBe(`${APP}/failed?from=idp&reason=HOSTED_DOMAIN_REFUSED`);
    const elsewhere = await browserFlow(s, "mallory");
    expect(reason(elsewhere.done.location)).toBe("EMAIL_DOMAIN_NOT_ALLOWED");
    expect(s.auth.calls).toHaveLength(0);
    // The provider was asked for the domain too.
    expect(new URL(noHd.authorization).searchParams.get("hd")).toBe("example.com");
  });

  it("turns a linking refusal of the authentication service into its reason", async () => {
    const s = setup();
    const jar = new CookieJar();
    const authorization = await start(s, jar);
    const callback = await signInAtProvider(jar, authorization, "alice");
    (s.auth as unknown as { loginWithProvider: unknown }).loginWithProvider = async () => {
      throw Object.assign(new Error("exists"), { reason: "ACCOUNT_EXISTS" });
    };
    const done = await callIdp(s.handler, "GET", callback, { jar });
    expect(reason(done.location)).toBe("ACCOUNT_EXISTS");
  });

  it("refuses a tampered state, a missing or tampered cookie, and a replayed state cookie", async () => {
    const s = setup();
    const jar = new CookieJar();
    const authorization = await start(s, jar);
    const callback = await signInAtProvider(jar, authorization, "alice");
    const sealed = jar.get("app.test", "sessionIdp") ?? "";

    const tamperedState = new URL(callback);
    tamperedState.searchParams.set("state", `${tamperedState.searchParams.get("state")}x`);
    expect(reason((await callIdp(s.handler, "GET", tamperedState.href, { jar })).location)).toBe("STATE_INVALID");

    const flipped = `${sealed.slice(0, -3)}${sealed.at(-3) === "A" ? "B" : "A"}${sealed.slice(-2)}`;
    const tamperedCookie = new CookieJar();
    tamperedCookie.set("app.test", "sessionIdp", flipped);
    expect(reason((await callIdp(s.handler, "GET", callback, { jar: tamperedCookie })).location)).toBe("STATE_INVALID");
    expect(reason((await callIdp(s.handler, "GET", callback, { jar: new CookieJar() })).location)).toBe("STATE_INVALID");

    const first = new CookieJar();
    first.set("app.test", "sessionIdp", sealed);
    const ok = await callIdp(s.handler, "GET", callback, { jar: first });
    expect(ok.location).toBe(`${APP}/welcome`);
    const replay = new CookieJar();
    replay.set("app.test", "sessionIdp", sealed);
    expect(reason((await callIdp(s.handler, "GET", callback, { jar: replay })).location)).toBe("STATE_USED");
    expect(s.auth.calls).toHaveLength(1);
  });

  it("refuses a replayed code under a fresh state", async () => {
    const s = setup();
    const { callback } = await browserFlow(s, "alice");
    const jar = new CookieJar();
    const second = new URL(await start(s, jar));
    const replayed = new URL(callback);
    replayed.searchParams.set("state", second.searchParams.get("state") ?? "");
    expect(reason((await callIdp(s.handler, "GET", replayed.href, { jar })).location)).toBe("CODE_REJECTED");
    expect(s.auth.calls).toHaveLength(1);
  });

  it("refuses an ID token whose nonce is not the flow's (authorization request tampered with)", async () => {
    const s = setup();
    const jar = new CookieJar();
    const authorization = new URL(await start(s, jar));
    authorization.searchParams.set("nonce", "attacker-chosen-nonce");
    const callback = await signInAtProvider(jar, authorization.href, "alice");
    expect(reason((await callIdp(s.handler, "GET", callback, { jar })).location)).toBe("ID_TOKEN_INVALID");
    expect(s.auth.calls).toHaveLength(0);
  });

  it("reports a provider error (access denied) as PROVIDER_ERROR", async () => {
    const s = setup();
    const jar = new CookieJar();
    const state = new URL(await start(s, jar)).searchParams.get("state") ?? "";
    const done = await callIdp(s.handler, "GET", `${APP}/auth/idp/callback?error=access_denied&state=${state}`, { jar });
    expect(reason(done.location)).toBe("PROVIDER_ERROR");
  });

  it("fails cleanly, to the failure page, when the provider's JWKS is unreachable", async () => {
    const unreachableJwks: IdpFetch = (url, init) => (new URL(url).pathname === "/jwks" ? Promise.reject(new TypeError("fetch failed")) : fetch(url, init));
    const s = setup({}, unreachableJwks);
    const { done } = await browserFlow(s, "alice");
    expect(done.status).toBe(302);
    expect(reason(done.location)).toBe("PROVIDER_UNAVAILABLE");
    expect(s.auth.calls).toHaveLength(0);
  });

  it("fails cleanly when the provider cannot be reached at all", async () => {
    const down: IdpFetch = () => Promise.reject(new TypeError("fetch failed"));
    const s = setup({}, down);
    const started = await callIdp(s.handler, "GET", `${APP}/auth/idp`, { jar: new CookieJar() });
    expect(started).toMatchObject({ status: 302, location: `${APP}/failed?from=idp&reason=PROVIDER_UNAVAILABLE` });
  });
});

describe("POST /auth/idp/token", () => {
  const post = (s: Setup, body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) =>
    callIdp(s.handler, "POST", `${APP}/auth/idp/token`, { rawBody: typeof body === "string" ? body : JSON.stringify(body), headers });
  const claims = (extra: Record<string, unknown> = {}) => ({ iss: idp.issuer, aud: "test-client", sub: "token-user", email: "token@example.com", email_verified: true, ...extra });

  it("logs in with {token} and with {tokens}, answering like the email login, never linking", async () => {
    const s = setup();
    const token = await forgeIdToken(claims(), { keyFile });
    const one = await post(s, { token });
    expect(one).toMatchObject({ status: 200, body: { user: { uuid: "u-token-user" }, access_token: "at", token_type: "Bearer", expires_in: 900, refresh_token: "rt" } });
    expect(one.cookies).toEqual(["session=s1; Path=/; HttpOnly; SameSite=Lax; Secure"]);
    const two = await post(s, { tokens: { id_token: token, access_token: "provider-at", refresh_token: "provider-rt" } });
    expect(two.status).toBe(200);
    expect(s.auth.calls.map((c) => c.options)).toEqual([{ trustEmailVerification: true }, { trustEmailVerification: true }]);
    expect(s.auth.calls[1]?.identity.tokens).toEqual({ id_token: token, access_token: "provider-at", refresh_token: "provider-rt" });
    expect(s.auth.calls[0]?.identity).toMatchObject({ provider: "idp", providerUid: "token-user", email: "token@example.com", emailVerified: true });
  });

  it("requires a JSON body with exactly one of tokens or token", async () => {
    const s = setup();
    const token = await forgeIdToken(claims(), { keyFile });
    expect((await post(s, { token }, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(s, `token=${token}`, { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await post(s, "", { "content-type": "" })).status).toBe(415);
    expect(await post(s, { token, tokens: { id_token: token } })).toMatchObject({ status: 400, body: { code: 400 } });
    expect(await post(s, {})).toMatchObject({ status: 400 });
    expect(await post(s, { tokens: { access_token: "x" } })).toMatchObject({ status: 400, body: { errors: [{ path: "/tokens/id_token" }] } });
    expect(await post(s, { token, user: { admin: true } })).toMatchObject({ status: 400, body: { errors: [{ path: "/user" }] } });
    expect(s.auth.calls).toHaveLength(0);
  });

  it("refuses ID tokens signed by another key, unsigned, for another audience, expired, from another issuer", async () => {
    const s = setup();
    const now = Math.floor(Date.now() / 1000);
    const refused = [
      await forgeIdToken(claims(), "stranger"),
      unsignedIdToken(claims({ iat: now, exp: now + 600 })),
      await forgeIdToken(claims({ aud: "someone-else" }), { keyFile }),
      await forgeIdToken(claims({ iat: now - 7200, exp: now - 3600 }), { keyFile }),
      await forgeIdToken(claims({ iss: "https://evil.example" }), { keyFile }),
      "not.a.jwt",
    ];
    for (const token of refused) {
      expect(await post(s, { token })).toMatchObject({ status: 401, body: { code: 401, reason: "ID_TOKEN_INVALID" } });
    }
    expect(s.auth.calls).toHaveLength(0);
  });

  it("accepts the configured extra audiences", async () => {
    const s = setup({ audiences: ["mobile-app"] });
    expect((await post(s, { token: await forgeIdToken(claims({ aud: "mobile-app" }), { keyFile }) })).status).toBe(200);
  });

  it("applies hostedDomain and allowedEmailDomains", async () => {
    const s = setup({ hostedDomain: "example.com", allowedEmailDomains: ["example.com"] });
    expect(await post(s, { token: await forgeIdToken(claims(), { keyFile }) })).toMatchObject({ status: 403, body: { reason: "HOSTED_DOMAIN_REFUSED" } });
    expect(await post(s, { token: await forgeIdToken(claims({ hd: "example.com", email: "x@evil.example" }), { keyFile }) })).toMatchObject({ status: 403, body: { reason: "EMAIL_DOMAIN_NOT_ALLOWED" } });
    expect((await post(s, { token: await forgeIdToken(claims({ hd: "example.com" }), { keyFile }) })).status).toBe(200);
  });

  it("answers ACCOUNT_EXISTS from the authentication service as its error", async () => {
    const s = setup();
    const answer = await post(s, { token: await forgeIdToken(claims({ email: "taken@example.com" }), { keyFile }) });
    expect(answer.status).toBe(409);
    expect(answer.cookies).toEqual([]);
  });
});
