import { describe, expect, it } from "vitest";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { devIdpFixture } from "./dev-idp-fixture.ts";
import { APP, login, setup, userOf } from "./idp-issuers-support.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";

/**
 * A User's `email` is the server's: the address of the account's own ident, written when the
 * account is created, and refused in every client write. Bob could PATCH his User `email` to
 * Carol's address, and `/auth/me` showed it as his.
 */
const idp = devIdpFixture(APP);
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };

async function registered() {
  const t = emailApp({ verification: "none", redirects: REDIRECTS });
  const browser = client(t);
  const email = newEmail();
  // An address in `user` is not the account's: the registered one is.
  const answer = await browser.request("POST", "/auth/email/register", {
    body: { email, password: PASSWORD, user: { ...profile("bob"), email: "carol@example.com" } },
  });
  expect(answer.status).toBe(200);
  const { access_token: token, user } = answer.body as { access_token: string; user: { uuid: string } };
  const me = async () => ((await browser.request("GET", "/auth/me")).body as { email?: string }).email;
  return { t, browser, email, token, uuid: user.uuid, me };
}

describe("User email is server-owned", () => {
  it("is the registered address, and REST PATCH and PUT naming it are refused with 400 naming /email", async () => {
    const { browser, email, uuid, me } = await registered();
    expect(await me()).toBe(email);

    const patched = await browser.request("PATCH", `/users/${uuid}`, { body: { email: "carol@example.com" } });
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject({ code: 400, message: expect.any(String), errors: [{ path: "/email", message: expect.any(String) }] });
    const replaced = await browser.request("PUT", `/users/${uuid}`, { body: { username: "bob", name: "Bob", email: "carol@example.com" } });
    expect(replaced.status).toBe(400);
    expect(replaced.body).toMatchObject({ code: 400, errors: [{ path: "/email" }] });
    expect(await me()).toBe(email);

    // The other fields stay the owner's to write, and a replace keeps the address.
    expect((await browser.request("PATCH", `/users/${uuid}`, { body: { bio: "hello" } })).status).toBe(200);
    expect((await browser.request("PUT", `/users/${uuid}`, { body: { username: "bobby", name: "Bob" } })).status).toBe(200);
    expect(await me()).toBe(email);
  });

  it("a GraphQL update naming it is refused with a coded error, and nothing changes", async () => {
    const { t, email, token, uuid, me } = await registered();
    const graphql = graphqlHandler(t.app);
    const ask = (query: string, variables?: Record<string, unknown>) =>
      call(graphql, httpEvent("POST", "/graphql", { body: { query, variables }, headers: { authorization: `Bearer ${token}`, host: "api.example.com" } }));

    const inline = await ask(`mutation { updateUser(uuid: "${uuid}", User: { username: "bob", name: "Bob", email: "carol@example.com" }) { uuid } }`);
    const variables = await ask('mutation($u: UserInput!) { updateUser(uuid: "' + uuid + '", User: $u) { uuid } }', {
      u: { username: "bob", name: "Bob", email: "carol@example.com" },
    });
    for (const answer of [inline, variables]) {
      const errors = (answer.body as { errors?: { message: string; extensions?: { code?: string } }[] }).errors ?? [];
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]?.extensions?.code).toMatch(/^(GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT)$/);
      expect(errors[0]?.message).toMatch(/email/);
    }
    expect(await me()).toBe(email);
  });
});

describe("a user created by an Idp login", () => {
  it("takes the provider's address only when the provider marks it verified", async () => {
    const s = await setup([idp]);
    const users = s.app.repository(s.auth.identityModel());
    const verified = await login(s, idp, `v-${crypto.randomUUID()}`, {}, { email: "verified-one@example.com", email_verified: true });
    const unverified = await login(s, idp, `u-${crypto.randomUUID()}`, {}, { email: "carol@example.com", email_verified: false });
    expect([verified.status, unverified.status]).toEqual([200, 200]);
    expect((await users.get({ uuid: userOf(verified) }))?.email).toBe("verified-one@example.com");
    expect(await users.get({ uuid: userOf(unverified) })).not.toHaveProperty("email");
  });
});
