import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_IDP_CLIENT_ID, DEV_IDP_KEY_FILE, DEV_IDP_PORT } from "../../lib/local/dev-idp/companion.ts";
import { followSignIn, forgeIdToken, signInAtProvider, unsignedIdToken } from "../auth/idp-support.ts";
import { requireChromium, skipWithoutChromium } from "../support/chromium.ts";
import { CookieJar, locationOf } from "../support/cookie-jar.ts";
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";

/**
 * The Idp provider end to end: `npm start` (serverless offline, DynamoDB Local and the local
 * OpenID provider it starts), a cookie jar following every redirect, and one run in headless
 * Chromium. ID tokens for the refusals are forged here with the local provider's own key (read
 * from .data/, where it keeps it) or with a stranger's.
 */
const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const keyFile = join(PROJECT_DIR, DEV_IDP_KEY_FILE);
const ISSUER = `http://127.0.0.1:${DEV_IDP_PORT}`;

let offline: Offline | undefined;
let base = "";

beforeAll(async () => {
  offline = await sharedOffline();
  base = offline.url;
}, 400_000);

afterAll(async () => {
  await offline?.stop();
}, 60_000);

/** Follows redirects across the API and the provider until a page answers; returns where it landed. */
const follow = (jar: CookieJar, url: string, login?: string) => followSignIn(jar, url, ISSUER, login);

async function me(jar: CookieJar): Promise<unknown> {
  const response = await jar.fetch(`${base}/auth/me`);
  return response.json();
}

const reasonOf = (url: string) => new URL(url).searchParams.get("reason");

describe("Idp browser flow through npm start and its local OpenID provider", () => {
  it("signs in at the local provider and comes back logged in, on the success target", async () => {
    const jar = new CookieJar();
    const landed = await follow(jar, `${base}/auth/idp?redirect=${encodeURIComponent(`${base}/auth/me`)}`, "alice");
    expect(landed.url).toBe(`${base}/auth/me`);
    expect(landed.response.status).toBe(200);
    expect(await landed.response.json()).toMatchObject({ uuid: expect.any(String) });
    // The state cookie is gone, the session cookie stays.
    expect(jar.get("127.0.0.1:3000", "sessionIdp")).toBeUndefined();
    expect(jar.get("127.0.0.1:3000", "session")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A second sign-in of the same account finds the same user.
    const again = new CookieJar();
    await follow(again, `${base}/auth/idp`, "alice");
    expect(((await me(again)) as { uuid: string }).uuid).toBe(((await me(jar)) as { uuid: string }).uuid);
  });

  it("refuses an account outside the hosted domain and an email outside the allowed domains", async () => {
    const carol = await follow(new CookieJar(), `${base}/auth/idp`, "carol");
    expect(reasonOf(carol.url)).toBe("HOSTED_DOMAIN_REFUSED");
    const mallory = new CookieJar();
    const refused = await follow(mallory, `${base}/auth/idp`, "mallory");
    expect(reasonOf(refused.url)).toBe("EMAIL_DOMAIN_NOT_ALLOWED");
    expect(sessionOf(mallory)).toBeUndefined();
  });

  it("answers for each demo user what docs/idp.md's table says", async () => {
    const doc = readFileSync(join(PROJECT_DIR, "docs/idp.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `(\w+)` \| [^|]+ \| (?:yes|no) \| [^|]+ \| (.+) \|$/gm)].map(([, user, outcome]) => ({
      user: user as string,
      outcome: outcome as string,
    }));
    expect(rows.map((r) => r.user)).toEqual(["alice", "bob", "carol", "mallory"]);
    for (const { user, outcome } of rows) {
      const jar = new CookieJar();
      const landed = await follow(jar, `${base}/auth/idp`, user);
      const said = /^refused: `([A-Z_]+)`/.exec(outcome)?.[1];
      if (said) {
        expect(reasonOf(landed.url), user).toBe(said);
        expect(sessionOf(jar), user).toBeUndefined();
      } else {
        expect(outcome, user).toMatch(/^logs in/);
        expect(reasonOf(landed.url), user).toBeNull();
        expect(((await me(jar)) as { uuid?: string }).uuid, user).toEqual(expect.any(String));
      }
    }
  });

  it("refuses a tampered state, a replayed state cookie, a replayed code and a foreign nonce", async () => {
    const browser = new CookieJar();
    const start = await browser.fetch(`${base}/auth/idp`);
    const authorization = locationOf(start, base);
    const sealed = browser.get("127.0.0.1:3000", "sessionIdp") ?? "";
    const callback = await signInAtProvider(browser, authorization, "alice");

    const tampered = new URL(callback);
    tampered.searchParams.set("state", "forged-state");
    const bad = await browser.fetch(tampered.href);
    expect(reasonOf(locationOf(bad, base))).toBe("STATE_INVALID");

    // The cookie was cleared by that refusal: the attacker's copy is replayed instead.
    const first = new CookieJar();
    first.set("127.0.0.1:3000", "sessionIdp", sealed, "/auth/idp");
    const ok = await first.fetch(callback);
    expect(locationOf(ok, base)).toBe(`${base}/auth/me`);
    const replay = new CookieJar();
    replay.set("127.0.0.1:3000", "sessionIdp", sealed, "/auth/idp");
    expect(reasonOf(locationOf(await replay.fetch(callback), base))).toBe("STATE_USED");

    const fresh = new CookieJar();
    const second = new URL(locationOf(await fresh.fetch(`${base}/auth/idp`), base));
    const replayedCode = new URL(callback);
    replayedCode.searchParams.set("state", second.searchParams.get("state") ?? "");
    expect(reasonOf(locationOf(await fresh.fetch(replayedCode.href), base))).toBe("CODE_REJECTED");

    const nonceJar = new CookieJar();
    const withNonce = new URL(locationOf(await nonceJar.fetch(`${base}/auth/idp`), base));
    withNonce.searchParams.set("nonce", "attacker-nonce");
    const nonceCallback = await signInAtProvider(nonceJar, withNonce.href, "alice");
    expect(reasonOf(locationOf(await nonceJar.fetch(nonceCallback), base))).toBe("ID_TOKEN_INVALID");
  });

  it("never sends the browser to an unauthorized target", async () => {
    const jar = new CookieJar();
    // The first sign-in leaves a session at the provider: the next flows go straight through.
    await follow(jar, `${base}/auth/idp`, "alice");
    const vectors = [
      "//evil.example",
      "https://evil.example/auth/me",
      "http://127.0.0.1:3000.evil.example/auth/me",
      "http://127.0.0.1:3000@evil.example/auth/me",
      "http://127.0.0.1:3000/auth/me/../../graphql",
      "http://127.0.0.1:3000/auth/me/%2e%2e/%2e%2e/graphql",
      "http://127.0.0.1:3000/auth/me%2F..%2F..%2Fgraphql",
      "http:\\\\evil.example\\auth\\me",
      "/\\evil.example",
      "http://127.0.0.1:3000\\@evil.example/auth/me",
    ];
    for (const target of vectors) {
      const start = await jar.fetch(`${base}/auth/idp?redirect=${encodeURIComponent(target)}`);
      const landed = await follow(jar, locationOf(start, base));
      expect(landed.url, target).toBe(`${base}/auth/me`);
    }
  });
});

describe("POST /auth/idp/token through npm start", () => {
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: ISSUER,
    aud: DEV_IDP_CLIENT_ID,
    sub: `e2e-${randomUUID()}`,
    email: `e2e-${randomUUID().slice(0, 8)}@example.com`,
    email_verified: true,
    hd: "example.com",
    ...extra,
  });
  const post = async (body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) => {
    const response = await fetch(`${base}/auth/idp/token`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
    return {
      status: response.status,
      cookies: response.headers.getSetCookie(),
      body: (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined,
    };
  };

  it("logs in with {token} and {tokens}; the access token and the session cookie both work", async () => {
    const c = claims();
    const token = await forgeIdToken(c, { keyFile });
    const one = await post({ token });
    expect(one).toMatchObject({ status: 200, body: { token_type: "Bearer" } });
    // The seconds left of a 15-minute token issued just now: a second boundary may pass before the answer.
    expect((one.body as { expires_in: number }).expires_in).toBeGreaterThanOrEqual(895);
    expect((one.body as { expires_in: number }).expires_in).toBeLessThanOrEqual(900);
    expect(one.cookies[0]).toMatch(/^session=/);
    const two = await post({ tokens: { id_token: token, access_token: "provider-access-token" } });
    expect(two.status).toBe(200);
    expect((two.body?.user as { uuid: string }).uuid).toBe((one.body?.user as { uuid: string }).uuid);
    const bearer = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${String(one.body?.access_token)}` } });
    expect(await bearer.json()).toMatchObject({ uuid: (one.body?.user as { uuid: string }).uuid });
  });

  it("refuses a non-JSON body, forged, expired, foreign-audience and unsigned ID tokens, and the domain rules", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await post(`token=${await forgeIdToken(claims(), { keyFile })}`, { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    for (const token of [
      await forgeIdToken(claims(), "stranger"),
      await forgeIdToken(claims({ aud: "another-client" }), { keyFile }),
      await forgeIdToken(claims({ iat: now - 7200, exp: now - 3600 }), { keyFile }),
      unsignedIdToken(claims({ iat: now, exp: now + 600 })),
    ]) {
      const refused = await post({ token });
      expect(refused).toMatchObject({ status: 401, body: { reason: "ID_TOKEN_INVALID" } });
      expect(refused.cookies).toEqual([]);
    }
    expect(await post({ token: await forgeIdToken(claims({ hd: undefined }), { keyFile }) })).toMatchObject({
      status: 403,
      body: { reason: "HOSTED_DOMAIN_REFUSED" },
    });
    expect(await post({ token: await forgeIdToken(claims({ email: "x@elsewhere.example" }), { keyFile }) })).toMatchObject({
      status: 403,
      body: { reason: "EMAIL_DOMAIN_NOT_ALLOWED" },
    });
  });
});

describe.skipIf(skipWithoutChromium())("Idp browser flow in headless Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: requireChromium(),
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-quic",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("clicks through the local provider's form and lands on the success target with a session", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/auth/idp`);
    expect(page.url().startsWith(`${ISSUER}/interaction/`)).toBe(true);
    await page.getByLabel("Username").fill("alice");
    await page.getByLabel("Password").fill("demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/auth/me`, { timeout: 20_000 });
    expect(JSON.parse(await page.locator("body").innerText())).toMatchObject({ uuid: expect.any(String) });
    const cookies = await context.cookies(base);
    expect(cookies.find((c) => c.name === "session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect(cookies.find((c) => c.name === "sessionIdp")).toBeUndefined();
    await context.close();
  });
});

function sessionOf(j: CookieJar): string | undefined {
  return j.get("127.0.0.1:3000", "session");
}
