import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_IDP_CLIENT_ID, DEV_IDP_PORT } from "../../lib/local/dev-idp/companion.ts";
import { takeOfflineTurn } from "../support/offline-turn.ts";
import { followSignIn } from "../auth/idp-support.ts";
import { CookieJar, locationOf } from "../support/cookie-jar.ts";
import { startJwksDownIdp, type JwksDownIdp } from "../support/jwks-down-idp.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { runBlock } from "../support/shell.ts";

/**
 * The authentication options that `npm start`'s own configuration does not show, each end to end:
 * a copy of the project whose app/definition.ts is edited as a user would edit theirs, then `npm start`
 * in it. One start per configuration; the sample's own (verification `before`, open registration,
 * Idp trusting the provider's email_verified) is covered by auth.test.ts and idp.test.ts.
 */
const APP = "app/definition.ts";
const EMAIL_SERVICE = `      type: "Framework/EmailPasswordProvider",\n`;
const IDP_SERVICE = `      type: "Framework/IdpProvider",\n`;
const DEV_ISSUER = `http://127.0.0.1:${DEV_IDP_PORT}`;
const PASSWORD = "correct horse battery";
const profile = { username: "options-user", name: "Options User" };
const newEmail = (domain = "example.com") => `opt-${randomUUID().slice(0, 8)}@${domain}`;

let project: ProjectCopy | undefined;
let offline: Offline | undefined;

beforeAll(() => {
  project = new ProjectCopy("auth-options");
});

afterAll(() => {
  project?.remove();
});

/** `npm start` in the copy, its app/definition.ts edited first; seeded only when asked (demo users). */
async function startWith(edits: readonly (readonly [string, string])[], seeded = false): Promise<Offline> {
  const copy = project as ProjectCopy;
  copy.edit(APP, edits);
  offline = await startOffline({ projectDir: copy.dir, args: seeded ? [] : ["--empty"], testUser: false, env: { PASSWORD_COST_LN: "12" } });
  return offline;
}

async function stop(): Promise<void> {
  await offline?.stop();
  offline = undefined;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
  cookies: string[];
  location: string | null;
}

/** A JSON request with the browser's cookies and Origin (cookie-authenticated writes need it). */
async function call(jar: CookieJar, method: string, path: string, body?: unknown): Promise<Reply> {
  const base = (offline as Offline).url;
  const response = await jar.fetch(`${base}${path}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    cookies: response.headers.getSetCookie(),
    location: response.headers.get("location"),
  };
}

function mailsTo(to: string): { text: string }[] {
  const outbox = join((project as ProjectCopy).dir, ".data", "outbox");
  let files: string[];
  try {
    files = readdirSync(outbox).sort();
  } catch {
    return [];
  }
  return files.map((f) => JSON.parse(readFileSync(join(outbox, f), "utf8")) as { to: string; text: string }).filter((m) => m.to === to);
}

async function mailTo(to: string): Promise<URL> {
  for (let i = 0; i < 100; i++) {
    const link = /https?:\/\/\S+/.exec(mailsTo(to)[0]?.text ?? "")?.[0];
    if (link) return new URL(link);
    await sleep(100);
  }
  throw new Error(`no mail to ${to}`);
}

/** The caller's email ident, as GET /auth/idents lists it (a jar, or the cookies a login set). */
async function emailIdent(who: CookieJar | string[]): Promise<Record<string, unknown> | undefined> {
  let jar = who as CookieJar;
  if (Array.isArray(who)) {
    jar = new CookieJar();
    jar.store((offline as Offline).url, who);
  }
  const listed = await call(jar, "GET", "/auth/idents");
  return (listed.body.idents as Record<string, unknown>[] | undefined)?.find((i) => i.provider === "email");
}

const reasonOf = (location: string | null) => (location ? new URL(location).searchParams.get("reason") : null);

async function emailLogin(jar: CookieJar, email: string, password: string): Promise<Reply> {
  return call(jar, "POST", "/auth/email/login", { email, password });
}

describe("a required redirect left out", () => {
  it("stops npm start before anything starts, naming the service, the option and why", { timeout: 420_000 }, async () => {
    const copy = project as ProjectCopy;
    copy.edit(APP, [["        verified: `${FRONT_END}/auth/verified`,\n", ""]]);
    // Held as any start would hold it: if the refusal regressed, the start would need the ports.
    const release = await takeOfflineTurn(300_000);
    try {
      const out = await runBlock("npm start", copy.dir, 100_000);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("npm start: Invalid application configuration:");
      expect(out.stderr).toContain("service 'email' (Framework/EmailPasswordProvider): option 'redirects.verified' is required (verification 'before')");
      // The message, not a stack trace; and nothing was started.
      expect(out.stderr).not.toMatch(/^\s+at /m);
      expect(out.stdout).not.toMatch(/DynamoDB Local on/);
    } finally {
      await release();
    }
  });
});

describe("verification 'after', allowed email domains, and an Idp whose keys cannot be fetched", () => {
  let idp: JwksDownIdp;

  beforeAll(async () => {
    idp = await startJwksDownIdp({
      clientId: DEV_IDP_CLIENT_ID,
      claims: { sub: "jwks-down-user", email: "down@example.com", email_verified: true, hd: "example.com" },
    });
    await startWith([
      [EMAIL_SERVICE, `${EMAIL_SERVICE}      verification: "after",\n      allowedEmailDomains: ["example.com"],\n`],
      [`issuer: setting("IDP_ISSUER") ?? "${DEV_ISSUER}",`, `issuer: "${idp.issuer}",`],
    ]);
  }, 400_000);

  afterAll(async () => {
    await stop();
    await idp?.close();
  }, 60_000);

  it("registers and logs in at once; the mailed link verifies only with that session", async () => {
    const browser = new CookieJar();
    const email = newEmail();
    const registered = await call(browser, "POST", "/auth/email/register", { email, password: PASSWORD, user: profile });
    expect(registered).toMatchObject({ status: 200, body: { token_type: "Bearer", user: { email } } });
    expect(registered.cookies[0]).toMatch(/^session=/);
    expect((await call(browser, "GET", "/auth/me")).body).toMatchObject({ email });
    expect(await emailIdent(browser)).toMatchObject({ email, verifiedAt: null });

    const link = await mailTo(email);
    const stranger = await call(new CookieJar(), "GET", `${link.pathname}${link.search}`);
    expect(stranger.status).toBe(302);
    expect(reasonOf(stranger.location)).toBe("LOGIN_REQUIRED");
    expect(await emailIdent(browser)).toMatchObject({ verifiedAt: null });

    const verified = await call(browser, "GET", `${link.pathname}${link.search}`);
    expect(verified).toMatchObject({ status: 302, location: "https://blog.example.com/auth/verified" });
    expect(await emailIdent(browser)).toMatchObject({ email, verifiedAt: expect.any(String) });
  });

  it("refuses an email outside the allowed domains, creating nothing", async () => {
    const email = newEmail("elsewhere.example");
    const refused = await call(new CookieJar(), "POST", "/auth/email/register", { email, password: PASSWORD, user: profile });
    expect(refused).toMatchObject({ status: 403, body: { reason: "EMAIL_DOMAIN_NOT_ALLOWED" } });
    expect(refused.cookies).toEqual([]);
    expect((await emailLogin(new CookieJar(), email, PASSWORD)).status).toBe(401);
    expect(mailsTo(email)).toEqual([]);
  });

  it("fails the browser flow to the failure page and the token login with 503, logging no one in", async () => {
    const jar = new CookieJar();
    const base = (offline as Offline).url;
    const start = await jar.fetch(`${base}/auth/idp`);
    expect(locationOf(start, base).startsWith(`${idp.issuer}/authorize?`)).toBe(true);
    const landed = await followSignIn(jar, locationOf(start, base), idp.issuer);
    // redirects.failure is /auth/me here: it answers anonymous (null), with the reason in its URL.
    expect(new URL(landed.url).searchParams.get("reason")).toBe("PROVIDER_UNAVAILABLE");
    expect(jar.get("127.0.0.1:3000", "session")).toBeUndefined();
    expect(await landed.response.json()).toBeNull();
    expect(idp.jwksAttempts()).toBeGreaterThan(0);

    // The same provider's ID token handed over directly: 503 in the error shape, no cookie.
    const down = await call(new CookieJar(), "POST", "/auth/idp/token", { token: await issuedToken(idp) });
    expect(down).toMatchObject({ status: 503, body: { reason: "PROVIDER_UNAVAILABLE" } });
    expect(down.cookies).toEqual([]);
    expect((offline as Offline).output()).not.toMatch(/audit: signed in .*provider=idp/);
  });
});

/** An ID token as the provider issues it (a code flow run against it directly). */
async function issuedToken(idp: JwksDownIdp): Promise<string> {
  const authorize = await fetch(`${idp.issuer}/authorize?redirect_uri=${encodeURIComponent("http://127.0.0.1/cb")}&state=s&nonce=n`, { redirect: "manual" });
  const code = new URL(authorize.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const answer = (await (
    await fetch(`${idp.issuer}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `code=${code}` })
  ).json()) as { id_token: string };
  return answer.id_token;
}

describe("verification 'none', and the Idp linking to demo accounts (provider's email_verified trusted)", () => {
  beforeAll(async () => {
    await startWith([[EMAIL_SERVICE, `${EMAIL_SERVICE}      verification: "none",\n`]], true);
  }, 400_000);

  afterAll(stop, 60_000);

  it("registers an unverified account that logs in at once, and mails nothing", async () => {
    const email = newEmail();
    const registered = await call(new CookieJar(), "POST", "/auth/email/register", { email, password: PASSWORD, user: profile });
    expect(registered).toMatchObject({ status: 200, body: { token_type: "Bearer", user: { email } } });
    const login = await emailLogin(new CookieJar(), email, PASSWORD);
    expect(login.status).toBe(200);
    expect(await emailIdent(login.cookies)).toMatchObject({ email, verifiedAt: null });
    await sleep(500); // a mail would be written by now: the outbox is a local folder
    expect(mailsTo(email)).toEqual([]);
  });

  it("links a provider-verified email to its demo account, refuses an unverified one, and emits both events", async () => {
    const demo = await emailLogin(new CookieJar(), "alice@example.com", "alice-demo-password");
    const alice = (demo.body.user as { uuid: string }).uuid;
    const base = (offline as Offline).url;

    const jar = new CookieJar();
    const landed = await followSignIn(jar, `${base}/auth/idp`, DEV_ISSUER, "alice");
    expect(landed.url).toBe(`${base}/auth/me`);
    expect(await landed.response.json()).toMatchObject({ uuid: alice, email: "alice@example.com" });
    const logs = (offline as Offline).output();
    expect(logs).toMatch(new RegExp(`audit: signed in user=${alice} provider=idp`));
    expect(logs).toMatch(new RegExp(`audit: provider tokens received user=${alice} provider=idp kinds=\\S*id_token`));

    // bob@example.com is a verified demo account; the provider does not vouch for bob's email, and
    // npm start's Idp admits only verified example.com addresses (allowedEmailDomains): refused
    // before any linking decision, with no session either way.
    const bob = new CookieJar();
    const refused = await followSignIn(bob, `${base}/auth/idp`, DEV_ISSUER, "bob");
    expect(new URL(refused.url).searchParams.get("reason")).toBe("EMAIL_NOT_VERIFIED");
    expect(bob.get("127.0.0.1:3000", "session")).toBeUndefined();
  });
});

describe("closed registration, and an Idp that does not trust the provider's email_verified", () => {
  beforeAll(async () => {
    await startWith(
      [
        [EMAIL_SERVICE, `${EMAIL_SERVICE}      registration: "closed",\n`],
        [IDP_SERVICE, `${IDP_SERVICE}      trustEmailVerification: false,\n`],
      ],
      true,
    );
  }, 400_000);

  afterAll(stop, 60_000);

  it("refuses every registration, in the same shape, while existing accounts log in", async () => {
    for (const body of [{ email: newEmail() }, { email: newEmail(), password: PASSWORD, user: profile }]) {
      const refused = await call(new CookieJar(), "POST", "/auth/email/register", body);
      expect(refused).toMatchObject({ status: 403, body: { reason: "REGISTRATION_CLOSED" } });
      expect(refused.cookies).toEqual([]);
    }
    expect((await emailLogin(new CookieJar(), "carol@example.com", "carol-demo-password")).status).toBe(200);
  });

  it("does not link a provider sign-in to a verified demo account, even when the provider vouches for the email", async () => {
    const jar = new CookieJar();
    const refused = await followSignIn(jar, `${(offline as Offline).url}/auth/idp`, DEV_ISSUER, "alice");
    expect(new URL(refused.url).searchParams.get("reason")).toBe("ACCOUNT_EXISTS");
    expect(jar.get("127.0.0.1:3000", "session")).toBeUndefined();
  });
});
