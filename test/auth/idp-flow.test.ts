import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definition } from "../fixtures/blog/index.ts";
import { Application } from "../../lib/core/application.ts";
import type { DomainEvent } from "../../lib/core/events.ts";
import { AuthenticationService } from "../../lib/auth/index.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { IdpProvider, type IdpFetch } from "../../lib/auth/idp/provider.ts";
import { startDevIdp, type DevIdp } from "../../lib/local/dev-idp/server.ts";
import { idpIdentKey } from "../../lib/auth/idp-keys.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { CookieJar } from "../support/cookie-jar.ts";
import { callIdp, forgeIdToken, signInAtProvider, unsignedIdToken } from "./idp-support.ts";
import { inProcess } from "../support/parts.ts";

/**
 * The Idp provider in-process against the real local OpenID provider (oidc-provider on a free
 * port), the real openid-client/jose, and the real authentication service on DynamoDB Local: every
 * check of the browser flow and of token login, the linking outcomes and both events. The e2e file
 * drives the same through `npm start`.
 */
const APP = "https://app.test";
const SECRET = "test-client-secret";

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
  const idpConfig = {
    type: "Framework/IdpProvider",
    issuer: idp.issuer,
    clientId: "test-client",
    authorized_uris: [`${APP}/allowed`],
    redirects: { success: `${APP}/welcome`, failure: `${APP}/failed?from=idp` },
    ...options,
  };
  const app = new Application({ ...definition, services: { ...definition.services, idp: idpConfig } }, inProcess).useStore(dynamoStore());
  const provider = app.service("idp")?.service as IdpProvider;
  provider.useRuntime({ env: { ...process.env, IDP_CLIENT_SECRET: SECRET }, ...(fetchOverride ? { fetch: fetchOverride } : {}) });
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  const events: DomainEvent[] = [];
  app.events.onEvent("*", (e) => {
    events.push(e);
  });
  const logins = () => events.filter((e) => e.name === "Authentication.Login");
  return { app, auth, handler: httpHandler("auth", authDispatcher(app)), events, logins };
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

const SESSION_COOKIE = /^session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/;

describe("GET /auth/providers", () => {
  it("sends the provider a redirect_uri no request header chose (PUBLIC_URL, else Host with http or https only)", async () => {
    const forged = { host: "evil.example:8080", "x-forwarded-proto": "https://evil.example/#", "x-forwarded-host": "evil.example" };
    const redirectOf = (location: string | undefined): string | null => new URL(location ?? "").searchParams.get("redirect_uri");
    // Configured: the deployed API's public URL, whatever the request says. Failed before: the
    // forged proto and Host made https://evil.example/#://evil.example:8080/auth/idp/callback.
    const configured = setup();
    (configured.app.service("idp")?.service as IdpProvider).useRuntime({ env: { ...process.env, IDP_CLIENT_SECRET: SECRET, PUBLIC_URL: APP } });
    const withPublicUrl = await callIdp(configured.handler, "GET", `${APP}/auth/idp`, { headers: forged });
    expect(withPublicUrl.status).toBe(302);
    expect(redirectOf(withPublicUrl.location)).toBe(`${APP}/auth/idp/callback`);
    // Not configured: the Host (API Gateway routes by it), and a proto that is not http or https is ignored.
    const bare = setup();
    const answered = await callIdp(bare.handler, "GET", `${APP}/auth/idp`, { headers: { host: "app.test", "x-forwarded-proto": "https://evil.example/#" } });
    expect(redirectOf(answered.location)).toBe(`https://app.test/auth/idp/callback`);
  });

  it("lists the Idp beside the email provider, with where its flow starts and its issuer", async () => {
    const { handler } = setup({ url: "/auth/corp" });
    const answer = await callIdp(handler, "GET", `${APP}/auth/providers`);
    expect(answer.status).toBe(200);
    const providers = (answer.body as { providers: Record<string, unknown>[] }).providers;
    expect(providers.map((p) => p.provider).sort()).toEqual(["email", "idp"]);
    expect(providers.find((p) => p.provider === "idp")).toEqual({ name: "idp", provider: "idp", url: "/auth/corp", issuer: idp.issuer });
  });
});

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

  it("sends an unauthorized redirect target to redirects.success", async () => {
    const s = setup();
    const { done } = await browserFlow(s, "alice", "https://app.test.evil.example/allowed");
    expect(done.location).toBe(`${APP}/welcome`);
  });
});

describe("GET /auth/idp/callback", () => {
  it("logs in: ident keyed by issuer and sub with the tokens encrypted, a session, both events, then the target", async () => {
    const s = setup();
    const { done } = await browserFlow(s, "alice", `${APP}/allowed/page?x=1`);
    expect(done.status).toBe(302);
    expect(done.location).toBe(`${APP}/allowed/page?x=1`);
    expect(done.cookies.find((c) => c.startsWith("session="))).toMatch(SESSION_COOKIE);
    expect(done.cookies.find((c) => c.startsWith("sessionIdp="))).toMatch(/^sessionIdp=; Path=\/auth\/idp; Max-Age=0/);
    const ident = await s.auth.idents.find("idp", "demo-alice", idp.issuer);
    expect(ident).toMatchObject({ uuid: idpIdentKey(idp.issuer, "demo-alice"), provider: "idp", issuer: idp.issuer, email: "alice@example.com" });
    const stored = await ident?.tokens.get();
    expect(typeof stored?.id_token).toBe("string");
    expect(typeof stored?.access_token).toBe("string");
    const tokensEvent = s.events.find((e) => e.name === "IdpAuth.Tokens");
    expect(tokensEvent?.payload.tokens).toMatchObject({ id_token: stored?.id_token, access_token: stored?.access_token });
    expect(tokensEvent?.payload.context).toBeDefined();
    expect(s.logins()).toHaveLength(1);
    expect(s.logins()[0]?.payload).toMatchObject({ user: ident?.user, provider: "idp" });
    expect(JSON.stringify(s.logins()[0]?.payload)).not.toContain(String(stored?.access_token));
  });

  it("refuses an account outside hostedDomain and an email outside allowedEmailDomains", async () => {
    const s = setup({ hostedDomain: "example.com", allowedEmailDomains: ["example.com"] });
    const noHd = await browserFlow(s, "carol");
    expect(noHd.done.location).toBe(`${APP}/failed?from=idp&reason=HOSTED_DOMAIN_REFUSED`);
    const elsewhere = await browserFlow(s, "mallory");
    expect(reason(elsewhere.done.location)).toBe("EMAIL_DOMAIN_NOT_ALLOWED");
    expect(s.logins()).toHaveLength(0);
    expect(elsewhere.done.cookies.some((c) => c.startsWith("session="))).toBe(false);
    // The provider was asked for the domain too.
    expect(new URL(noHd.authorization).searchParams.get("hd")).toBe("example.com");
  });

  it("allowedEmailDomains needs an address the provider marks verified (issue 25, attack 10)", async () => {
    // bob@example.com is in the allowed domain, but the provider does not vouch for it.
    const s = setup({ allowedEmailDomains: ["example.com"] });
    const { done } = await browserFlow(s, "bob");
    expect(reason(done.location)).toBe("EMAIL_NOT_VERIFIED");
    expect(done.cookies.some((c) => c.startsWith("session="))).toBe(false);
    expect(s.logins()).toHaveLength(0);
  });

  it("refuses an unverified provider email that a verified account owns: ACCOUNT_EXISTS", async () => {
    const s = setup();
    await s.auth.idents
      .create({ provider: "email", providerUid: "bob@example.com", user: randomUUID(), email: "bob@example.com", verified: true })
      .catch(() => undefined);
    const { done } = await browserFlow(s, "bob");
    expect(reason(done.location)).toBe("ACCOUNT_EXISTS");
    expect(await s.auth.idents.find("idp", "demo-bob", idp.issuer)).toBeUndefined();
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
    const replayed = await callIdp(s.handler, "GET", callback, { jar: replay });
    expect(reason(replayed.location)).toBe("STATE_USED");
    expect(replayed.cookies.some((c) => c.startsWith("session="))).toBe(false);
    expect(s.logins()).toHaveLength(1);
  });

  it("refuses a replayed code under a fresh state", async () => {
    const s = setup();
    const { callback } = await browserFlow(s, "alice");
    const jar = new CookieJar();
    const second = new URL(await start(s, jar));
    const replayed = new URL(callback);
    replayed.searchParams.set("state", second.searchParams.get("state") ?? "");
    expect(reason((await callIdp(s.handler, "GET", replayed.href, { jar })).location)).toBe("CODE_REJECTED");
    expect(s.logins()).toHaveLength(1);
  });

  it("refuses an ID token whose nonce is not the flow's (authorization request tampered with)", async () => {
    const s = setup();
    const jar = new CookieJar();
    const authorization = new URL(await start(s, jar));
    authorization.searchParams.set("nonce", "attacker-chosen-nonce");
    const callback = await signInAtProvider(jar, authorization.href, "alice");
    expect(reason((await callIdp(s.handler, "GET", callback, { jar })).location)).toBe("ID_TOKEN_INVALID");
    expect(s.logins()).toHaveLength(0);
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
    expect(s.logins()).toHaveLength(0);
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
  const fresh = () => ({ sub: `sub-${randomUUID()}`, email: `t-${randomUUID().slice(0, 8)}@example.com` });
  const claims = (extra: Record<string, unknown> = {}) => ({ iss: idp.issuer, aud: "test-client", ...fresh(), email_verified: true, ...extra });

  it("logs in with {token} and with {tokens}, answering like the email login, tokens stored encrypted", async () => {
    const s = setup();
    const c = claims();
    const token = await forgeIdToken(c, { keyFile });
    const one = await post(s, { token });
    expect(one).toMatchObject({ status: 200, body: { token_type: "Bearer" } });
    // The seconds left of a 15-minute token issued just now: a second boundary may pass before the answer.
    expect((one.body as { expires_in: number }).expires_in).toBeGreaterThanOrEqual(895);
    expect((one.body as { expires_in: number }).expires_in).toBeLessThanOrEqual(900);
    const body = one.body as { user: { uuid: string }; access_token: string; refresh_token: string };
    expect(typeof body.access_token).toBe("string");
    expect(typeof body.refresh_token).toBe("string");
    expect(one.cookies).toHaveLength(1);
    expect(one.cookies[0]).toMatch(SESSION_COOKIE);
    const two = await post(s, { tokens: { id_token: token, access_token: "provider-at", refresh_token: "provider-rt" } });
    expect(two.status).toBe(200);
    expect((two.body as { user: { uuid: string } }).user.uuid).toBe(body.user.uuid);
    const ident = await s.auth.idents.find("idp", String(c.sub), idp.issuer);
    expect(ident?.user).toBe(body.user.uuid);
    expect(await ident?.tokens.get()).toEqual({ id_token: token, access_token: "provider-at", refresh_token: "provider-rt" });
    expect(s.events.filter((e) => e.name === "IdpAuth.Tokens").map((e) => e.payload.tokens)).toEqual([
      { id_token: token },
      { id_token: token, access_token: "provider-at", refresh_token: "provider-rt" },
    ]);
    expect(s.logins()).toHaveLength(2);
  });

  it("links to a verified email account only when the provider asserts it and trustEmailVerification allows it", async () => {
    const s = setup();
    const distrust = setup({ trustEmailVerification: false });
    // An existing user with a verified email ident (as the email provider leaves it).
    const first = await post(s, { token: await forgeIdToken(claims(), { keyFile }) });
    const owner = (first.body as { user: { uuid: string } }).user.uuid;
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    await s.auth.idents.create({ provider: "email", providerUid: email, user: owner, email, verified: true });

    const unverified = await post(s, { token: await forgeIdToken(claims({ email, email_verified: false }), { keyFile }) });
    expect(unverified).toMatchObject({ status: 409, body: { reason: "ACCOUNT_EXISTS" } });
    const untrusted = await post(distrust, { token: await forgeIdToken(claims({ email, email_verified: true }), { keyFile }) });
    expect(untrusted).toMatchObject({ status: 409, body: { reason: "ACCOUNT_EXISTS" } });
    expect(unverified.cookies.concat(untrusted.cookies)).toEqual([]);

    const c = claims({ email, email_verified: true });
    const linked = await post(s, { token: await forgeIdToken(c, { keyFile }) });
    expect(linked.status).toBe(200);
    expect((linked.body as { user: { uuid: string } }).user.uuid).toBe(owner);
    expect((await s.auth.idents.find("idp", String(c.sub), idp.issuer))?.user).toBe(owner);
  });

  it("never links the identity to the logged-in caller", async () => {
    const s = setup();
    const caller = await post(s, { token: await forgeIdToken(claims(), { keyFile }) });
    const callerUser = (caller.body as { user: { uuid: string } }).user.uuid;
    const callerToken = (caller.body as { access_token: string }).access_token;
    const c = claims();
    const other = await post(
      s,
      { token: await forgeIdToken(c, { keyFile }) },
      { "content-type": "application/json", authorization: `Bearer ${callerToken}`, cookie: caller.cookies[0]?.split(";")[0] ?? "" },
    );
    expect(other.status).toBe(200);
    expect((other.body as { user: { uuid: string } }).user.uuid).not.toBe(callerUser);
    expect((await s.auth.idents.find("idp", String(c.sub), idp.issuer))?.user).not.toBe(callerUser);
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
    expect(s.logins()).toHaveLength(0);
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
    expect(s.logins()).toHaveLength(0);
  });

  it("accepts the configured extra audiences", async () => {
    const s = setup({ audiences: ["mobile-app"] });
    expect((await post(s, { token: await forgeIdToken(claims({ aud: "mobile-app" }), { keyFile }) })).status).toBe(200);
  });

  it("applies hostedDomain and allowedEmailDomains", async () => {
    const s = setup({ hostedDomain: "example.com", allowedEmailDomains: ["example.com"] });
    expect(await post(s, { token: await forgeIdToken(claims(), { keyFile }) })).toMatchObject({ status: 403, body: { reason: "HOSTED_DOMAIN_REFUSED" } });
    expect(await post(s, { token: await forgeIdToken(claims({ hd: "example.com", email: "x@evil.example" }), { keyFile }) })).toMatchObject({
      status: 403,
      body: { reason: "EMAIL_DOMAIN_NOT_ALLOWED" },
    });
    expect((await post(s, { token: await forgeIdToken(claims({ hd: "example.com" }), { keyFile }) })).status).toBe(200);
  });

  it("allowedEmailDomains refuses an address the provider does not mark verified, unless allowUnverifiedEmailDomains", async () => {
    const strict = setup({ allowedEmailDomains: ["example.com"] });
    for (const unverified of [{ email_verified: false }, { email_verified: "false" }, { email_verified: undefined }]) {
      expect(await post(strict, { token: await forgeIdToken(claims(unverified), { keyFile }) })).toMatchObject({
        status: 403,
        body: { reason: "EMAIL_NOT_VERIFIED" },
      });
    }
    expect(strict.logins()).toHaveLength(0);
    const relaxed = setup({ allowedEmailDomains: ["example.com"], allowUnverifiedEmailDomains: true });
    expect((await post(relaxed, { token: await forgeIdToken(claims({ email_verified: false }), { keyFile }) })).status).toBe(200);
    expect(await post(relaxed, { token: await forgeIdToken(claims({ email: "x@evil.example", email_verified: false }), { keyFile }) })).toMatchObject({
      status: 403,
      body: { reason: "EMAIL_DOMAIN_NOT_ALLOWED" },
    });
  });
});
