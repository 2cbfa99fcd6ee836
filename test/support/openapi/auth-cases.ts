import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { JWTPayload } from "jose";
import { DEV_IDP_CLIENT_ID, DEV_IDP_KEY_FILE, DEV_IDP_PORT } from "../../../lib/local/dev-idp/companion.ts";
import { forgeIdToken, signInAtProvider } from "../../auth/idp-support.ts";
import { CookieJar } from "../cookie-jar.ts";
import type { Call, Conformance, Result } from "./conformance.ts";
import { bodyFailures, type ServiceCase } from "./plan.ts";

/**
 * The authentication routes' cases, against `npm start` (the sample's email provider in `before`
 * mode, its outbox under .data/, the local OpenID provider). Each route is called successfully and
 * once per failure class it lists, with real credentials (access tokens, the session cookie),
 * never the test-user seam. Accounts are registered through the routes themselves, so those calls
 * are checked too.
 */
const PASSWORD = "correct horse battery";
const PROFILE = { username: "openapi-user", name: "OpenAPI User" };
const EVIL = "https://evil.example";
const ISSUER = `http://127.0.0.1:${DEV_IDP_PORT}`;

interface Mail {
  to: string;
  text: string;
}

interface Account {
  email: string;
  /** The registration token of the mailed link (still valid after use: a second registration is a 409). */
  registerToken: string;
  uuid: string;
  access: string;
  refresh: string;
  /** `session=<value>`, for a Cookie header. */
  cookie: string;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function cookieOf(result: Result, name: string): string {
  const line = result.cookies.find((c) => c.startsWith(`${name}=`));
  if (!line) throw new Error(`no ${name} cookie in the answer (status ${result.status})`);
  return line.split(";")[0] as string;
}

function locationOf(result: Result): URL {
  const location = result.headers.location;
  if (!location) throw new Error(`no Location in the answer (status ${result.status})`);
  return new URL(location, "http://127.0.0.1");
}

const pathOf = (url: URL) => `${url.pathname}${url.search}`;

function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}

export interface AuthCaseOptions {
  projectDir: string;
  baseUrl: string;
  /** Writes an account as v3 left it, its email never confirmed (in `before` mode only v3 data is so): its login is a 403. */
  unverifiedAccount: () => Promise<{ email: string; password: string }>;
}

export function authCases({ projectDir, baseUrl, unverifiedAccount }: AuthCaseOptions): Record<string, ServiceCase> {
  const outbox = join(projectDir, ".data", "outbox");
  const keyFile = join(projectDir, DEV_IDP_KEY_FILE);
  const address = () => `openapi-${randomUUID().slice(0, 8)}@example.com`;
  const claims = (extra: JWTPayload = {}): JWTPayload => ({
    iss: ISSUER,
    aud: DEV_IDP_CLIENT_ID,
    sub: `openapi-${randomUUID()}`,
    email: address(),
    email_verified: true,
    hd: "example.com",
    ...extra,
  });

  function mails(to: string): Mail[] {
    let files: string[];
    try {
      files = readdirSync(outbox).sort();
    } catch {
      return [];
    }
    return files.map((f) => JSON.parse(readFileSync(join(outbox, f), "utf8")) as Mail).filter((m) => m.to === to);
  }

  /** The link of the first mail to `to` whose link has `path`: the outbox is written as the route answers. */
  async function mailedLink(to: string, path: string): Promise<URL> {
    for (let i = 0; i < 100; i++) {
      const link = mails(to)
        .map((m) => /https?:\/\/\S+/.exec(m.text)?.[0])
        .find((l) => l !== undefined && new URL(l).pathname === path);
      if (link) return new URL(link);
      await sleep(100);
    }
    throw new Error(`no mail to ${to} with a link to ${path} in ${outbox}`);
  }

  /** `before` mode: ask for the link (202), open it (302 with the token), register with it (200). */
  async function register(run: Conformance, email: string): Promise<{ token: string; done: Call }> {
    await run.call({ operationId: "Auth.Email.Register", expect: 202, path: "/auth/email/register", body: { email } });
    const link = await mailedLink(email, "/auth/email/verify");
    const hop = await run.call({ operationId: "Auth.Email.Verify", expect: 302, path: pathOf(link) });
    const token = locationOf(hop).searchParams.get("token") ?? "";
    return {
      token,
      done: { operationId: "Auth.Email.Register", expect: 200, path: "/auth/email/register", body: { email, password: PASSWORD, user: PROFILE, token } },
    };
  }

  async function newAccount(run: Conformance): Promise<Account> {
    const email = address();
    const { token, done } = await register(run, email);
    const result = await run.call(done);
    const body = result.json as { user: { uuid: string }; access_token: string; refresh_token: string };
    return { email, registerToken: token, uuid: body.user.uuid, access: body.access_token, refresh: body.refresh_token, cookie: cookieOf(result, "session") };
  }

  async function login(run: Conformance, account: Account): Promise<Result> {
    return run.call({ operationId: "Auth.Email.Login", expect: 200, path: "/auth/email/login", body: { email: account.email, password: PASSWORD } });
  }

  let shared: (() => Promise<Account>) | undefined;
  let recovering: (() => Promise<Account>) | undefined;
  const sharedAccount = (run: Conformance) => (shared ??= lazy(() => newAccount(run)))();
  // Registered as early as possible: its recovery mail waits out the resend delay after the registration mail.
  const recoveryAccount = (run: Conformance) => (recovering ??= lazy(() => newAccount(run)))();

  return {
    "Auth.Jwks": async () => ({ generic: false, success: { operationId: "Auth.Jwks", expect: 200, path: "/.well-known/jwks.json" } }),
    "Auth.Providers": async () => ({ generic: false, success: { operationId: "Auth.Providers", expect: 200, path: "/auth/providers" } }),
    "Auth.Me": async ({ run }) => {
      const account = await sharedAccount(run);
      await recoveryAccount(run);
      const success: Call = { operationId: "Auth.Me", expect: 200, path: "/auth/me", headers: bearer(account.access) };
      // Anonymous, with a token that is not one, with the cookie: 200 each (null for the first two).
      const extra: Call[] = [
        { ...success, headers: {} },
        { ...success, headers: bearer("not-a-token") },
        { ...success, headers: { cookie: account.cookie } },
      ];
      return { generic: false, success, extra };
    },
    "Auth.Refresh": async ({ run }) => {
      const account = await sharedAccount(run);
      const { refresh_token } = (await login(run, account)).json as { refresh_token: string };
      const success: Call = { operationId: "Auth.Refresh", expect: 200, path: "/auth/refresh", body: { refresh_token } };
      return {
        generic: false,
        success,
        // (A spent token within the reuse interval answers the same pair again: an unknown one is the 401 here.)
        before: [
          ...bodyFailures(success),
          { ...success, expect: 400, body: {}, invalidBody: true },
          { ...success, expect: 401, body: { refresh_token: "not-a-refresh-token" } },
        ],
      };
    },
    "Auth.Logout": async ({ run }) => {
      const account = await sharedAccount(run);
      const cookie = cookieOf(await login(run, account), "session");
      const success: Call = { operationId: "Auth.Logout", expect: 204, path: "/auth/logout", headers: { cookie, origin: baseUrl } };
      return { generic: false, success, before: [{ ...success, expect: 403, headers: { cookie, origin: EVIL } }], extra: [{ ...success, headers: {} }] };
    },
    "Auth.Idents": async ({ run }) => {
      const account = await sharedAccount(run);
      const success: Call = { operationId: "Auth.Idents", expect: 200, path: "/auth/idents", headers: bearer(account.access) };
      return { generic: false, success, before: [{ ...success, expect: 401, headers: {} }] };
    },
    "Auth.Unlink": async ({ run }) => {
      const account = await newAccount(run);
      // A verified email asserted verified by the (trusted) provider links a second ident to the account.
      const token = await forgeIdToken(claims({ email: account.email }), { keyFile });
      await run.call({ operationId: "Auth.Idp.Token", expect: 200, path: "/auth/idp/token", body: { token } });
      const listed = await run.call({ operationId: "Auth.Idents", expect: 200, path: "/auth/idents", headers: bearer(account.access) });
      const idents = (listed.json as { idents: { uuid: string; provider: string }[] }).idents;
      const idp = idents.find((i) => i.provider !== "email")?.uuid ?? "missing";
      const email = idents.find((i) => i.provider === "email")?.uuid ?? "missing";
      const success: Call = { operationId: "Auth.Unlink", expect: 204, path: `/auth/idents/${encodeURIComponent(idp)}`, headers: bearer(account.access) };
      return {
        generic: false,
        success,
        before: [
          { ...success, expect: 401, headers: {} },
          { ...success, expect: 404, path: `/auth/idents/${encodeURIComponent(`${address()}:email`)}` },
          { ...success, expect: 403, headers: { cookie: account.cookie, origin: EVIL } },
        ],
        extra: [{ ...success, expect: 409, path: `/auth/idents/${encodeURIComponent(email)}` }],
      };
    },
    "Auth.Email.Login": async ({ run }) => {
      const account = await sharedAccount(run);
      const success: Call = { operationId: "Auth.Email.Login", expect: 200, path: "/auth/email/login", body: { email: account.email, password: PASSWORD } };
      const wrong: Call = { ...success, expect: 401, body: { email: account.email, password: "wrong password" } };
      // Another account takes the throttle: three failures, then an attempt within the delay (or
      // after five failures, any attempt) is a 429 with Retry-After. How many guesses that takes
      // depends on how fast they come, so they go here, until the 429.
      const throttled = await newAccount(run);
      const guess: Call = { ...wrong, body: { email: throttled.email, password: "wrong password" } };
      for (let i = 0; i < 3; i++) await run.call(guess);
      for (let i = 0; i < 8 && (await run.call({ ...guess, expect: 429, alsoOk: [401] })).status !== 429; i++);
      const unverified = await unverifiedAccount();
      return { generic: false, success, before: [...bodyFailures(success), wrong], extra: [{ ...success, expect: 403, body: unverified }] };
    },
    "Auth.Email.Register": async ({ run }) => {
      const { done } = await register(run, address());
      const forged = { ...done, expect: 400, body: { ...(done.body as object), token: "not-a-registration-token" } };
      const badUser = { ...done, expect: 400, body: { ...(done.body as object), user: { ...PROFILE, isAdmin: true } }, invalidBody: true };
      // The same link again: the account exists now.
      return { generic: false, success: done, before: [...bodyFailures(done), forged, badUser], extra: [{ ...done, expect: 409 }] };
    },
    "Auth.Email.Verify": async ({ run }) => {
      const email = address();
      await run.call({ operationId: "Auth.Email.Register", expect: 202, path: "/auth/email/register", body: { email } });
      const link = await mailedLink(email, "/auth/email/verify");
      const success: Call = { operationId: "Auth.Email.Verify", expect: 302, path: pathOf(link) };
      // A forged token and none: 302 to the failure page as well.
      return {
        generic: false,
        success,
        extra: [
          { ...success, path: "/auth/email/verify?token=forged" },
          { ...success, path: "/auth/email/verify" },
        ],
      };
    },
    "Auth.Email.StartVerification": async ({ run }) => {
      const account = await sharedAccount(run);
      const success: Call = { operationId: "Auth.Email.StartVerification", expect: 202, path: "/auth/email/verification", body: { email: account.email } };
      return { generic: false, success, before: [...bodyFailures(success), { ...success, expect: 403, headers: { cookie: account.cookie, origin: EVIL } }] };
    },
    "Auth.Password.RecoverLink": async () => {
      const success: Call = { operationId: "Auth.Password.RecoverLink", expect: 302, path: "/auth/email/recover?token=some-token" };
      return { generic: false, success, extra: [{ ...success, path: "/auth/email/recover" }] };
    },
    "Auth.Password.StartRecovery": async () => {
      const success: Call = {
        operationId: "Auth.Password.StartRecovery",
        expect: 202,
        path: "/auth/password/recovery",
        body: { email: `nobody-${randomUUID().slice(0, 8)}@example.com` },
      };
      return { generic: false, success, before: bodyFailures(success) };
    },
    "Auth.Password.Recover": async ({ run }) => {
      const account = await recoveryAccount(run);
      // One mail per address per resend delay (10 s in the sample): ask until the recovery mail is out.
      const ask: Call = { operationId: "Auth.Password.StartRecovery", expect: 202, path: "/auth/password/recovery", body: { email: account.email } };
      let link: URL | undefined;
      for (let i = 0; i < 20 && !link; i++) {
        await run.call(ask);
        link = await mailedLink(account.email, "/auth/email/recover").catch(() => undefined);
      }
      const token = link?.searchParams.get("token") ?? "no-mail";
      const success: Call = {
        operationId: "Auth.Password.Recover",
        expect: 200,
        path: "/auth/password/recover",
        body: { token, password: "a brand new passphrase" },
      };
      // Used once, the token is spent (it names the old password hash).
      return {
        generic: false,
        success,
        before: [...bodyFailures(success), { ...success, expect: 400, body: { token: "forged", password: "a brand new passphrase" } }],
        extra: [{ ...success, expect: 400 }],
      };
    },
    "Auth.Password.Change": async ({ run }) => {
      const account = await newAccount(run);
      const success: Call = {
        operationId: "Auth.Password.Change",
        expect: 200,
        path: "/auth/password/change",
        headers: bearer(account.access),
        body: { password: PASSWORD, new_password: "another passphrase" },
      };
      // Wrong current passwords are throttled like logins: on another account, guesses until the 429.
      const throttled = await newAccount(run);
      const guess: Call = {
        ...success,
        expect: 401,
        headers: bearer(throttled.access),
        body: { password: "not the password", new_password: "another passphrase" },
      };
      for (let i = 0; i < 3; i++) await run.call(guess);
      for (let i = 0; i < 8 && (await run.call({ ...guess, expect: 429, alsoOk: [401] })).status !== 429; i++);
      return {
        generic: false,
        success,
        before: [
          ...bodyFailures(success),
          { ...success, expect: 401, headers: {} },
          { ...success, expect: 401, body: { password: "not the password", new_password: "another passphrase" } },
          { ...success, expect: 403, headers: { cookie: account.cookie, origin: EVIL } },
        ],
      };
    },
    "Auth.Idp.Start": async () => {
      const success: Call = { operationId: "Auth.Idp.Start", expect: 302, path: "/auth/idp" };
      // An unauthorized target is ignored: still off to the provider.
      return { generic: false, success, extra: [{ ...success, path: `/auth/idp?redirect=${encodeURIComponent(`${EVIL}/auth/me`)}` }] };
    },
    "Auth.Idp.Callback": async ({ run }) => {
      const start = await run.call({ operationId: "Auth.Idp.Start", expect: 302, path: "/auth/idp" });
      const cookie = cookieOf(start, "sessionIdp");
      const callback = new URL(await signInAtProvider(new CookieJar(), locationOf(start).href, "alice"));
      const success: Call = { operationId: "Auth.Idp.Callback", expect: 302, path: pathOf(callback), headers: { cookie } };
      const tampered = new URL(callback);
      tampered.searchParams.set("state", "forged-state");
      // A tampered state, then the real one, then the real one replayed: all redirects, the last two to the failure page.
      return { generic: false, success, before: [{ ...success, path: pathOf(tampered) }], extra: [success] };
    },
    "Auth.Idp.Token": async ({ run }) => {
      const account = await sharedAccount(run);
      const success: Call = { operationId: "Auth.Idp.Token", expect: 200, path: "/auth/idp/token", body: { token: await forgeIdToken(claims(), { keyFile }) } };
      return {
        generic: false,
        success,
        before: [
          ...bodyFailures(success),
          { ...success, expect: 400, body: { token: "x", tokens: { id_token: "x" } }, invalidBody: true },
          { ...success, expect: 401, body: { token: await forgeIdToken(claims(), "stranger") } },
          { ...success, expect: 403, body: { token: await forgeIdToken(claims({ hd: undefined }), { keyFile }) } },
          // The email belongs to a verified account and the provider does not assert it verified:
          // npm start's Idp takes only verified example.com addresses (allowedEmailDomains), so
          // this is refused before any linking decision (the 409 is test/auth/idp-linking.test.ts's).
          { ...success, expect: 403, body: { token: await forgeIdToken(claims({ email: account.email, email_verified: false }), { keyFile }) } },
        ],
        extra: [{ ...success, body: { tokens: { id_token: await forgeIdToken(claims(), { keyFile }), access_token: "provider-access-token" } } }],
      };
    },
  };
}
