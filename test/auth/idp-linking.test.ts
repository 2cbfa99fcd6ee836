import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { definition } from "../fixtures/blog/index.ts";
import { AuthenticationService } from "../../lib/auth/index.ts";
import { IdpProvider } from "../../lib/auth/idp/provider.ts";
import { createUser, profileFields } from "../../lib/auth/users.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { Application } from "../../lib/core/application.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { CookieJar } from "../support/cookie-jar.ts";
import { devIdpFixture, TEST_CLIENT_SECRET } from "./dev-idp-fixture.ts";
import { freshAuthPrefix } from "./fresh-auth-tables.ts";
import { callIdp, forgeIdToken, signInAtProvider } from "./idp-support.ts";
import { inProcess } from "../support/parts.ts";

/**
 * The attack: an Idp asserting a verified address landed in the password account that
 * owns it even when the operator set the email provider's `linking` to "never" or its
 * `trustEmailVerification` to false, because the Idp login passed only its own options. Every
 * outcome here goes through the real Idp login (browser flow against the local OpenID provider,
 * and POST auth/idp/token), with each value of each option.
 */
const APP = "https://app.test";
const SECRET = TEST_CLIENT_SECRET;
const provider = devIdpFixture(APP);

interface Options {
  email?: Record<string, unknown>;
  idp?: Record<string, unknown>;
}

async function setup(options: Options = {}) {
  const base = definition.services.email as { type: string } & Record<string, unknown>;
  const app = new Application(
    {
      ...definition,
      services: {
        ...definition.services,
        email: { ...base, password: { cost: { ln: 10 } }, ...options.email },
        idp: {
          type: "Framework/IdpProvider",
          issuer: provider.idp.issuer,
          clientId: "test-client",
          redirects: { success: `${APP}/welcome`, failure: `${APP}/failed` },
          ...options.idp,
        },
      },
    },
    inProcess,
  ).useStore(dynamoStore(await freshAuthPrefix()));
  (app.service("idp")?.service as IdpProvider).useRuntime({ env: { ...process.env, IDP_CLIENT_SECRET: SECRET } });
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  return { app, auth, handler: httpHandler("auth", authDispatcher(app)) };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** An account whose email ident is verified (the victim). */
async function victim(s: Setup, email: string, verified = true): Promise<string> {
  const info = s.auth.identityModel();
  const user = await createUser(s.app, info, profileFields(info, { name: "Victim" }, email));
  await s.auth.idents.create({ provider: "email", providerUid: email, user, email, verified });
  return user;
}

/** The browser flow as the demo user `username`: the user it logged in, or the failure reason. */
async function browserLogin(s: Setup, username: string): Promise<{ user?: string; reason?: string | null }> {
  const jar = new CookieJar();
  const started = await callIdp(s.handler, "GET", `${APP}/auth/idp`, { jar });
  const callback = await signInAtProvider(jar, started.location ?? "", username);
  const done = await callIdp(s.handler, "GET", callback, { jar });
  const location = new URL(done.location ?? "http://x");
  if (location.pathname === "/failed") return { reason: location.searchParams.get("reason") };
  const me = await callIdp(s.handler, "GET", `${APP}/auth/me`, { jar });
  return { user: (me.body as { uuid?: string } | null)?.uuid };
}

async function tokenLogin(s: Setup, email: string, emailVerified: boolean): Promise<{ user?: string; reason?: string }> {
  const token = await forgeIdToken(
    { iss: provider.idp.issuer, aud: "test-client", sub: `sub-${randomUUID()}`, email, email_verified: emailVerified },
    { keyFile: provider.keyFile },
  );
  const answer = await callIdp(s.handler, "POST", `${APP}/auth/idp/token`, {
    rawBody: JSON.stringify({ token }),
    headers: { "content-type": "application/json" },
  });
  if (answer.status === 200) return { user: (answer.body as { user: { uuid: string } }).user.uuid };
  expect(answer.cookies).toEqual([]);
  return { reason: (answer.body as { reason: string }).reason };
}

const refused = { reason: "ACCOUNT_EXISTS" };

describe("account linking through the real Idp login reads every option that governs it", () => {
  const matrix: { name: string; options: Options; asserted: boolean; links: boolean }[] = [];
  for (const linking of ["verified", "never"] as const) {
    for (const emailTrust of [true, false]) {
      for (const idpTrust of [true, false]) {
        for (const asserted of [true, false]) {
          matrix.push({
            name: `email linking ${linking}, email trust ${emailTrust}, idp trust ${idpTrust}, email_verified ${asserted}`,
            options: { email: { linking, trustEmailVerification: emailTrust }, idp: { trustEmailVerification: idpTrust } },
            asserted,
            links: linking === "verified" && emailTrust && idpTrust && asserted,
          });
        }
      }
    }
  }

  it("token login: links only when every option allows it, else ACCOUNT_EXISTS and no session", async () => {
    for (const c of matrix) {
      const s = await setup(c.options);
      const email = `victim-${randomUUID().slice(0, 8)}@example.com`;
      const owner = await victim(s, email);
      const outcome = await tokenLogin(s, email, c.asserted);
      expect(outcome, c.name).toEqual(c.links ? { user: owner } : refused);
    }
  });

  it("browser flow: a provider asserting the victim's verified address stays out when the email provider says never", async () => {
    const never = await setup({ email: { linking: "never" } });
    const owner = await victim(never, "alice@example.com");
    expect(await browserLogin(never, "alice")).toEqual(refused);
    expect((await never.auth.idents.listByUser(owner)).map((i) => i.provider)).toEqual(["email"]);
  });

  it("browser flow: ... and when the email provider does not trust its own verification", async () => {
    const distrust = await setup({ email: { trustEmailVerification: false } });
    await victim(distrust, "alice@example.com");
    expect(await browserLogin(distrust, "alice")).toEqual(refused);
  });

  it("browser flow: ... and when the Idp's own trustEmailVerification is false", async () => {
    const distrust = await setup({ idp: { trustEmailVerification: false } });
    await victim(distrust, "alice@example.com");
    expect(await browserLogin(distrust, "alice")).toEqual(refused);
  });

  it("browser flow: an address the provider does not assert verified (bob) is refused; with every option at its default, alice links", async () => {
    const s = await setup();
    await victim(s, "bob@example.com");
    expect(await browserLogin(s, "bob")).toEqual(refused);
    const owner = await victim(s, "alice@example.com");
    expect(await browserLogin(s, "alice")).toEqual({ user: owner });
  });

  it("an owner never verified proves nothing: the Idp login gets its own account, whatever the options", async () => {
    const s = await setup({ email: { linking: "never" } });
    const email = `unverified-${randomUUID().slice(0, 8)}@example.com`;
    const squatter = await victim(s, email, false);
    const outcome = await tokenLogin(s, email, true);
    expect(outcome.user).toBeDefined();
    expect(outcome.user).not.toBe(squatter);
  });
});
