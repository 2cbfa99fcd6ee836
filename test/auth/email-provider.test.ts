import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../lib/core/config.ts";
import { Application } from "../../lib/core/application.ts";
import { definition } from "../fixtures/blog/index.ts";
import { checkCost } from "../../lib/auth/email/options.ts";
import { client, emailApp, linkIn, newEmail, PASSWORD, profile, tokenOf } from "./client.ts";
import { emfLinesOf } from "../support/emf.ts";
import { inProcess } from "../support/parts.ts";
import { withEnvironment } from "../support/offline-env.ts";

// Metric lines to stdout, as in Lambda (vitest.config.ts sends them nowhere), to read them: set
// before the tests build their handlers (each reads it as it is built), put back after the file.
withEnvironment({ METRICS_FILE: "" });

describe("registration, verification mode 'after'", () => {
  it("logs in at once, mails a link that verifies only with the matching session", async () => {
    const t = emailApp({ verification: "after" });
    const browser = client(t);
    const email = newEmail();
    const registered = await browser.request("POST", "/auth/email/register", {
      body: { email: ` ${email.toUpperCase()} `, password: PASSWORD, user: profile() },
    });
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({ token_type: "Bearer", user: { email, username: "alice" } });
    expect(Object.keys(registered.body as object).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type", "user"]);
    expect(registered.cookies[0]).toMatch(/^session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
    const [mail] = t.mails(email);
    const link = linkIn(mail);
    expect(link).toMatch(/^https:\/\/api\.example\.com\/auth\/email\/verify\?token=/);

    // Without the session: redirect to confirm with LOGIN_REQUIRED and the token, nothing changed.
    const stranger = client(t);
    const refused = await stranger.request("GET", `/auth/email/verify?token=${encodeURIComponent(tokenOf(link))}`);
    expect(refused.status).toBe(302);
    const location = new URL(refused.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe("https://blog.example.com/auth/confirm");
    expect(location.searchParams.get("reason")).toBe("LOGIN_REQUIRED");
    expect(location.searchParams.get("token")).toBe(tokenOf(link));
    expect((await t.auth.idents.find("email", email))?.verifiedAt).toBeUndefined();

    // Another logged-in user is not the matching session either.
    const other = client(t);
    await other.request("POST", "/auth/email/register", { body: { email: newEmail(), password: PASSWORD, user: profile("bob") } });
    expect(
      new URL((await other.request("GET", `/auth/email/verify?token=${encodeURIComponent(tokenOf(link))}`)).headers.location as string).searchParams.get(
        "reason",
      ),
    ).toBe("LOGIN_REQUIRED");

    const verified = await browser.request("GET", `/auth/email/verify?token=${encodeURIComponent(tokenOf(link))}`);
    expect(verified.headers.location).toBe("https://blog.example.com/auth/verified");
    expect((await t.auth.idents.find("email", email))?.verifiedAt).toEqual(expect.any(String));
  });

  it("answers ACCOUNT_EXISTS for a registered email and refuses mass assignment, writing nothing", async () => {
    const t = emailApp({ verification: "after" });
    const browser = client(t);
    const email = newEmail();
    await browser.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const again = await client(t).request("POST", "/auth/email/register", { body: { email: email.toUpperCase(), password: PASSWORD, user: profile("eve") } });
    expect(again).toMatchObject({ status: 409, body: { code: 409, reason: "ACCOUNT_EXISTS" } });
    for (const extra of [{ uuid: "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0001" }, { roles: ["admin"] }, { verifiedAt: "2020-01-01T00:00:00Z" }]) {
      const other = newEmail();
      const refused = await client(t).request("POST", "/auth/email/register", { body: { email: other, password: PASSWORD, user: { ...profile(), ...extra } } });
      expect(refused.status).toBe(400);
      expect(await t.auth.idents.find("email", other)).toBeUndefined();
    }
  });
});

describe("registration, verification mode 'none'", () => {
  it("creates an unverified account, logs in, sends nothing", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://blog.example.com/f", recover: "https://blog.example.com/r" } });
    const email = newEmail();
    const registered = await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    expect(registered.status).toBe(200);
    expect(t.mails(email)).toEqual([]);
    expect((await t.auth.idents.find("email", email))?.verifiedAt).toBeUndefined();
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(200);
  });
});

describe("registration, verification mode 'before'", () => {
  it("mails a link first (same answer for a known address), then registers with the token", async () => {
    const t = emailApp();
    const email = newEmail();
    const browser = client(t);
    const started = await browser.request("POST", "/auth/email/register", { body: { email } });
    expect(started).toMatchObject({ status: 202 });
    const link = linkIn(t.mails(email)[0]);
    const hop = await browser.request("GET", new URL(link).pathname + new URL(link).search);
    expect(hop.status).toBe(302);
    expect(hop.headers.location).toBe(`https://blog.example.com/auth/register?token=${encodeURIComponent(tokenOf(link))}`);
    const withoutPassword = await browser.request("POST", "/auth/email/register", { body: { email, token: tokenOf(link), user: profile() } });
    expect(withoutPassword.status).toBe(400);
    const wrongEmail = await browser.request("POST", "/auth/email/register", {
      body: { email: newEmail(), token: tokenOf(link), password: PASSWORD, user: profile() },
    });
    expect(wrongEmail).toMatchObject({ status: 400, body: { reason: "INVALID_TOKEN" } });
    const registered = await browser.request("POST", "/auth/email/register", { body: { email, token: tokenOf(link), password: PASSWORD, user: profile() } });
    expect(registered.status).toBe(200);
    expect((await t.auth.idents.find("email", email))?.verifiedAt).toEqual(expect.any(String));
    expect((await browser.request("GET", "/auth/me")).body).toMatchObject({ email });

    // A known address: the same status and body; the mail it gets says so instead of a link.
    const known = await client(t).request("POST", "/auth/email/register", { body: { email, password: "whatever-123" } });
    const unknown = await client(t).request("POST", "/auth/email/register", { body: { email: newEmail(), password: "whatever-123" } });
    expect(known.status).toBe(unknown.status);
    expect(known.body).toEqual(unknown.body);
    expect(t.mails(email)).toHaveLength(1); // throttled: the first mail is less than resendDelay old
  });

  it("refuses closed registration and foreign domains", async () => {
    const closed = emailApp({ registration: "closed" });
    expect(await client(closed).request("POST", "/auth/email/register", { body: { email: newEmail() } })).toMatchObject({
      status: 403,
      body: { reason: "REGISTRATION_CLOSED" },
    });
    const domains = emailApp({ allowedEmailDomains: ["blog.example.com"] });
    expect(await client(domains).request("POST", "/auth/email/register", { body: { email: newEmail() } })).toMatchObject({
      status: 403,
      body: { reason: "EMAIL_DOMAIN_NOT_ALLOWED" },
    });
    expect((await client(domains).request("POST", "/auth/email/register", { body: { email: "x@blog.example.com" } })).status).toBe(202);
  });
});

describe("configuration", () => {
  it("refuses to start without a required redirect, naming it", () => {
    const start = (redirects: Record<string, string>, verification = "before") =>
      new Application(
        { ...definition, services: { ...definition.services, email: { type: "Framework/EmailPasswordProvider", verification, redirects } } },
        inProcess,
      );
    expect(() => start({ failure: "https://x.test/f", verified: "https://x.test/v", register: "https://x.test/r" })).toThrow(
      /service 'email' \(Framework\/EmailPasswordProvider\): option 'redirects.recover' is required/,
    );
    expect(() => start({ failure: "https://x.test/f", recover: "https://x.test/r" })).toThrow(
      /'redirects.verified' is required[\s\S]*'redirects.register' is required/,
    );
    expect(() => start({ failure: "https://x.test/f", recover: "https://x.test/r" }, "none")).not.toThrow();
  });

  it("refuses a hash cost under OWASP's floor in a Lambda runtime, whatever the test flags", () => {
    for (const flags of [{}, { NODE_ENV: "test", VITEST: "true" }, { IS_OFFLINE: "true" }]) {
      expect(() =>
        checkCost("email", "Framework/EmailPasswordProvider", { ln: 10, r: 8, p: 1 }, { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x", ...flags }),
      ).toThrow(ConfigurationError);
    }
    expect(() => checkCost("email", "Framework/EmailPasswordProvider", { ln: 17, r: 8, p: 1 }, { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" })).not.toThrow();
  });
});

describe("login", () => {
  async function account(t: ReturnType<typeof emailApp>) {
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    return email;
  }

  it("answers the fixed shape, trims and lowercases the email, and refuses unknown and wrong alike", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const email = await account(t);
    const ok = await client(t).request("POST", "/auth/email/login", { body: { email: `  ${email.toUpperCase()}`, password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body as object).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type", "user"]);
    const wrong = await client(t).request("POST", "/auth/email/login", { body: { email, password: "not the password" } });
    const unknown = await client(t).request("POST", "/auth/email/login", { body: { email: newEmail(), password: "not the password" } });
    expect(wrong).toMatchObject({ status: 401, body: { reason: "INVALID_CREDENTIALS" } });
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
    expect((await client(t).request("POST", "/auth/email/login", { body: { email } })).status).toBe(400);
  });

  it("counts failures before the password check, then delays, then locks out with Retry-After", async () => {
    const t = emailApp({
      verification: "none",
      redirects: { failure: "https://x.test/f", recover: "https://x.test/r" },
      throttle: { failedBeforeDelay: 2, delay: 10, lockout: { after: 4, duration: 600 } },
    });
    let now = Date.now();
    t.auth.now = () => now;
    const email = await account(t);
    const attempt = (password = "wrong password") => client(t).request("POST", "/auth/email/login", { body: { email, password } });
    expect((await attempt()).status).toBe(401);
    expect((await t.auth.idents.find("email", email))?._loginAttempts).toBe(1);
    expect((await attempt()).status).toBe(401);
    const delayed = await attempt(PASSWORD); // even the right password waits
    expect(delayed).toMatchObject({ status: 429, body: { reason: "TOO_MANY_ATTEMPTS" } });
    expect(delayed.headers["retry-after"]).toBe("10");
    now += 10_000;
    expect((await attempt()).status).toBe(401); // 3
    now += 20_000;
    expect((await attempt()).status).toBe(401); // 4: locked from now on
    now += 40_000;
    let locked: Awaited<ReturnType<typeof attempt>> | undefined;
    // The refusal is counted in the request's metric line (docs/operating.md, "Lockouts").
    const [line] = await emfLinesOf(async () => {
      locked = await attempt(PASSWORD);
    });
    expect(locked).toMatchObject({ status: 429, body: { reason: "LOCKED_OUT" } });
    expect(line).toMatchObject({ Service: "auth", StatusClass: "4xx", Lockouts: 1 });
    expect(Number(locked?.headers["retry-after"])).toBe(560);
    now += 560_000;
    expect((await attempt(PASSWORD)).status).toBe(200);
    expect((await t.auth.idents.find("email", email))?._loginAttempts).toBe(0);
  });
});

describe("recovery", () => {
  it("answers alike for known and unknown emails, mails at most once per resendDelay", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const known = await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    const unknown = await client(t).request("POST", "/auth/password/recovery", { body: { email: newEmail() } });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    expect(t.mails(email)).toHaveLength(1);
  });

  it("sets the password, verifies the email, resets attempts and ends every earlier credential", async () => {
    const t = emailApp({ verification: "after" });
    let now = Date.now();
    t.auth.now = () => now;
    const email = newEmail();
    const browser = client(t);
    const login = (await browser.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).body as {
      access_token: string;
      refresh_token: string;
    };
    await client(t).request("POST", "/auth/email/login", { body: { email, password: "wrong password" } });
    // The verification mail went out just now; a recovery mail is another kind, with its own
    // slot: it goes at once, and a second one waits out resendDelay (60 s).
    await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    expect(t.mails(email).filter((m) => m.subject.includes("reset"))).toHaveLength(1);
    now += 61_000;
    await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    expect(t.mails(email).filter((m) => m.subject.includes("reset"))).toHaveLength(2);
    const link = linkIn(t.mails(email).findLast((m) => m.subject.includes("reset")));
    expect(link).toMatch(/\/auth\/email\/recover\?token=/);
    const hop = await client(t).request("GET", new URL(link).pathname + new URL(link).search);
    expect(hop.headers.location).toBe(`https://blog.example.com/auth/recover?token=${encodeURIComponent(tokenOf(link))}`);
    const weak = await client(t).request("POST", "/auth/password/recover", { body: { token: tokenOf(link), password: "short" } });
    expect(weak).toMatchObject({ status: 400, body: { reason: "PASSWORD_POLICY", errors: [{ path: "/password" }] } });
    const recovered = await client(t).request("POST", "/auth/password/recover", { body: { token: tokenOf(link), password: "a brand new password" } });
    expect(recovered.status).toBe(200);
    const ident = await t.auth.idents.find("email", email);
    expect(ident?.verifiedAt).toEqual(expect.any(String));
    expect(ident?._loginAttempts).toBe(0);
    // Earlier cookie, access token and refresh token: all anonymous or refused now.
    expect((await browser.request("GET", "/auth/me")).body).toBeNull();
    expect((await client(t).request("GET", "/auth/me", { headers: { authorization: `Bearer ${login.access_token}` } })).body).toBeNull();
    expect((await client(t).request("POST", "/auth/refresh", { body: { refresh_token: login.refresh_token } })).status).toBe(401);
    // The link works once; the old password is gone, the new one works.
    expect((await client(t).request("POST", "/auth/password/recover", { body: { token: tokenOf(link), password: "another new password" } })).status).toBe(400);
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: "a brand new password" } })).status).toBe(200);
  });
});

describe("password change", () => {
  it("ends the other sessions and earlier access tokens; the caller continues with new credentials", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const email = newEmail();
    const laptop = client(t);
    const first = (await laptop.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).body as {
      access_token: string;
    };
    const phone = client(t);
    await phone.request("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
    expect((await laptop.request("POST", "/auth/password/change", { body: { password: "wrong password", new_password: "a new password" } })).status).toBe(401);
    const changed = await laptop.request("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a new password" } });
    expect(changed.status).toBe(200);
    const fresh = changed.body as { access_token: string };
    expect((await phone.request("GET", "/auth/me")).body).toBeNull();
    expect((await client(t).request("GET", "/auth/me", { headers: { authorization: `Bearer ${first.access_token}` } })).body).toBeNull();
    expect((await client(t).request("GET", "/auth/me", { headers: { authorization: `Bearer ${fresh.access_token}` } })).body).toMatchObject({ email });
    expect((await laptop.request("GET", "/auth/me")).body).toMatchObject({ email });
    expect((await client(t).request("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "x" } })).body).toMatchObject({
      reason: "LOGIN_REQUIRED",
    });
  });

  it("counts wrong current passwords on the caller's session: a stolen session cannot guess without limit", async () => {
    const t = emailApp({
      verification: "none",
      redirects: { failure: "https://x.test/f", recover: "https://x.test/r" },
      throttle: { failedBeforeDelay: 2, delay: 10, lockout: { after: 3, duration: 600 } },
    });
    let now = Date.now();
    t.auth.now = () => now;
    const email = newEmail();
    const thief = client(t);
    await thief.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const change = (password: string) => thief.request("POST", "/auth/password/change", { body: { password, new_password: "the thief's password" } });
    expect((await change("guess one")).status).toBe(401);
    expect((await change("guess two")).status).toBe(401);
    // Even the right password waits on that session; the owner's login does not share its count.
    expect(await change(PASSWORD)).toMatchObject({ status: 429, body: { reason: "TOO_MANY_ATTEMPTS" } });
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(200);
    now += 10_000;
    expect((await change("guess three")).status).toBe(401);
    now += 20_000;
    expect(await change(PASSWORD)).toMatchObject({ status: 429, body: { reason: "LOCKED_OUT" } });
    now += 600_000;
    // Once the lock has passed, the right password changes it.
    expect((await change(PASSWORD)).status).toBe(200);
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: "the thief's password" } })).status).toBe(200);
  });

  it("never makes the owner's change wait because someone else guesses the password at the login", async () => {
    const t = emailApp({
      verification: "none",
      redirects: { failure: "https://x.test/f", recover: "https://x.test/r" },
      throttle: { failedBeforeDelay: 1, delay: 10, lockout: { after: 2, duration: 600 } },
    });
    const email = newEmail();
    const owner = client(t);
    await owner.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const guess = () => client(t).request("POST", "/auth/email/login", { body: { email, password: "a wrong guess" } });
    expect((await guess()).status).toBe(401);
    expect((await guess()).status).toBe(429);
    // The login waits now (for the owner too): the signed-in owner's change does not.
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(429);
    const changed = await owner.request("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a new password" } });
    expect(changed.status).toBe(200);
    expect((await owner.request("GET", "/auth/me")).body).toMatchObject({ email });
  });
});

describe("CSRF", () => {
  it("refuses a cookie-authenticated write from a foreign or missing Origin; a bearer needs none", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const browser = client(t);
    const login = (await browser.request("POST", "/auth/email/register", { body: { email: newEmail(), password: PASSWORD, user: profile() } })).body as {
      access_token: string;
    };
    const foreign = await browser.request("POST", "/auth/logout", { headers: { origin: "https://evil.example" } });
    expect(foreign).toMatchObject({ status: 403, body: { reason: "ORIGIN_REFUSED" } });
    const none = await browser.request("POST", "/auth/logout", { headers: { origin: "" } });
    expect(none.status).toBe(403);
    expect((await browser.request("GET", "/auth/me", { headers: { origin: "https://evil.example" } })).status).toBe(200);
    const bearer = await client(t).request("POST", "/auth/logout", {
      headers: { origin: "https://evil.example", authorization: `Bearer ${login.access_token}` },
    });
    expect(bearer.status).toBe(204);
    expect((await browser.request("POST", "/auth/logout")).status).toBe(204);
  });
});
