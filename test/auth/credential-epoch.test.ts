import { describe, expect, it, vi } from "vitest";
import { hashPassword } from "../../lib/auth/email/passwords.ts";
import { IDENTS } from "../../lib/auth/tables.ts";
import type { Application } from "../../lib/core/application.ts";
import type { Repository } from "../../lib/store/repository.ts";
import { client, emailApp, linkIn, newEmail, PASSWORD, profile, tokenOf, type Reply } from "./client.ts";

/**
 * A login reads the credential generation, then the hash, verifies it, resets the ident's failure
 * count, then opens its session. A password change or recovery that lands between the verification
 * and the session must end that session all the same (lib/auth/sessions.ts). The interleaving is
 * made certain by holding the login's reset write (fault injection on the real DynamoDB Local
 * repository: the next `_loginAttempts: 0` patch of an ident) until the change has finished.
 */
function holdAfterNextVerifiedLogin(app: Application) {
  const original = app.tableRepository.bind(app);
  let armed = false;
  let reached = (): void => undefined;
  let release = (): void => undefined;
  const reachedP = new Promise<void>((resolve) => (reached = resolve));
  const releasedP = new Promise<void>((resolve) => (release = resolve));
  const wrap = (repository: Repository): Repository =>
    new Proxy(repository, {
      get(target, property, receiver) {
        if (property === "patch") {
          return async (...args: Parameters<Repository["patch"]>) => {
            if (armed && args[1]._loginAttempts === 0) {
              armed = false;
              reached();
              await releasedP;
            }
            return target.patch(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  vi.spyOn(app, "tableRepository").mockImplementation((name, shape) => (name === IDENTS ? wrap(original(name, shape)) : original(name, shape)));
  return {
    arm: () => (armed = true),
    reached: reachedP,
    release: () => release(),
  };
}

const options = { verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } } as const;
type Tokens = { access_token: string; refresh_token: string };

/** Every credential of that login is refused: its cookie, its access token and its refresh token. */
async function expectDead(t: ReturnType<typeof emailApp>, browser: ReturnType<typeof client>, login: Reply): Promise<void> {
  const tokens = login.body as Tokens;
  expect((await browser.request("GET", "/auth/me")).body).toBeNull();
  expect((await client(t).request("GET", "/auth/me", { headers: { authorization: `Bearer ${tokens.access_token}` } })).body).toBeNull();
  expect(await client(t).request("POST", "/auth/refresh", { body: { refresh_token: tokens.refresh_token } })).toMatchObject({
    status: 401,
    body: { reason: "INVALID_REFRESH_TOKEN" },
  });
}

describe("a session opened with the old password", () => {
  it("dies with a password change that lands between the login's hash check and its session", async () => {
    const t = emailApp(options);
    const hold = holdAfterNextVerifiedLogin(t.app);
    const email = newEmail();
    const owner = client(t);
    expect((await owner.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);

    const attacker = client(t);
    hold.arm();
    const racing = attacker.request("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
    await hold.reached; // the old password is verified; the session is not opened yet
    expect((await owner.request("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a new passphrase" } })).status).toBe(200);
    hold.release();
    const login = await racing;
    expect(login.status).toBe(200); // the login had verified the password: it answers, but opens nothing that lasts

    await expectDead(t, attacker, login);
    expect((await owner.request("GET", "/auth/me")).body).toMatchObject({ email });
  });

  it("dies with a recovery that lands between the login's hash check and its session", async () => {
    const t = emailApp(options);
    const hold = holdAfterNextVerifiedLogin(t.app);
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    const token = tokenOf(linkIn(t.mails(email).at(-1)));

    const attacker = client(t);
    hold.arm();
    const racing = attacker.request("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
    await hold.reached;
    const owner = client(t);
    expect((await owner.request("POST", "/auth/password/recover", { body: { token, password: "a new passphrase" } })).status).toBe(200);
    hold.release();
    const login = await racing;
    expect(login.status).toBe(200);

    await expectDead(t, attacker, login);
    expect((await owner.request("GET", "/auth/me")).body).toMatchObject({ email });
  });

  it("cannot put the old password back by the rehash of a login that verified it before the change", async () => {
    const t = emailApp({ ...options, password: { cost: { ln: 11 } } });
    const hold = holdAfterNextVerifiedLogin(t.app);
    const email = newEmail();
    const owner = client(t);
    const registered = await owner.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const uuid = (registered.body as { user: { uuid: string } }).user.uuid;
    // A hash weaker than the configured cost: the next login with it rehashes.
    await t.app.repository(t.auth.identityModel()).patch({ uuid }, { password: await hashPassword(PASSWORD, { ln: 10, r: 8, p: 1 }) }, []);

    const attacker = client(t);
    hold.arm();
    const racing = attacker.request("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
    await hold.reached;
    expect((await owner.request("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a new passphrase" } })).status).toBe(200);
    hold.release();
    await expectDead(t, attacker, await racing);

    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await client(t).request("POST", "/auth/email/login", { body: { email, password: "a new passphrase" } })).status).toBe(200);
  });

  it("never survives a change made while logins with the old password run without pause, and the change is never refused", async () => {
    const t = emailApp(options);
    const email = newEmail();
    const owner = client(t);
    await owner.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });

    // Four attackers log in with the old password back to back until the change has answered.
    let changed = false;
    const opened: { browser: ReturnType<typeof client>; login: Reply }[] = [];
    const loop = async () => {
      while (!changed) {
        const browser = client(t);
        const login = await browser.request("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
        if (login.status === 200) opened.push({ browser, login });
        // The new password refuses it; concurrent logins of one account may also be told to retry.
        else expect([401, 429]).toContain(login.status);
      }
    };
    const attackers = [loop(), loop(), loop(), loop()];
    // Let some logins succeed first, so that sessions of the old password exist when it changes.
    await vi.waitFor(() => expect(opened.length).toBeGreaterThanOrEqual(4), { timeout: 20_000, interval: 20 });
    const change = await owner.request("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a new passphrase" } });
    changed = true;
    await Promise.all(attackers);

    expect(change.status).toBe(200);
    for (const { browser, login } of opened) await expectDead(t, browser, login);
    expect((await owner.request("GET", "/auth/me")).body).toMatchObject({ email });
  });
});
