import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Context } from "../../lib/core/context.ts";
import type { DomainEvent } from "../../lib/core/events.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";

/** An email account whose address is verified. */
async function verifiedAccount(t: ReturnType<typeof emailApp>) {
  const email = newEmail();
  const registered = (await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).body as {
    user: { uuid: string };
  };
  const ident = await t.auth.idents.find("email", email);
  if (!ident) throw new Error("no ident");
  await t.auth.idents.patch(ident, { verifiedAt: new Date().toISOString() });
  return { email, user: registered.user.uuid };
}

const idp = (email: string, emailVerified: boolean, tokens?: Record<string, unknown>) => ({
  provider: "idp" as const,
  providerUid: randomUUID(),
  issuer: "https://idp.test.example",
  email,
  emailVerified,
  profile: { name: "Ida" },
  ...(tokens ? { tokens } : {}),
});

describe("loginWithProvider (the seam of the Idp provider)", () => {
  it("refuses a logged-out login on a verified email it does not assert verified (ACCOUNT_EXISTS), links when it does", async () => {
    const t = emailApp({ verification: "after" });
    const { email, user } = await verifiedAccount(t);
    await expect(t.auth.loginWithProvider(Context.anonymous(), idp(email, false), { trustEmailVerification: true })).rejects.toMatchObject({
      status: 409,
      reason: "ACCOUNT_EXISTS",
    });
    await expect(t.auth.loginWithProvider(Context.anonymous(), idp(email, true), { trustEmailVerification: false })).rejects.toMatchObject({
      reason: "ACCOUNT_EXISTS",
    });
    const linked = await t.auth.loginWithProvider(Context.anonymous(), idp(email, true), { trustEmailVerification: true });
    expect(linked.user.uuid).toBe(user);
    expect((await t.auth.idents.listByUser(user)).map((i) => i.provider).sort()).toEqual(["email", "idp"]);
  });

  it("stores provider tokens encrypted, and keeps them out of the Login event", async () => {
    const t = emailApp({ verification: "after" });
    const events: DomainEvent[] = [];
    t.app.events.onEvent("*", (event) => {
      events.push(event);
    });
    const identity = idp(newEmail(), true, { access_token: "idp-secret-token", id_token: "x.y.z" });
    const login = await t.auth.loginWithProvider(Context.anonymous(), identity, { trustEmailVerification: true });
    const ident = await t.auth.idents.find("idp", identity.providerUid, identity.issuer);
    expect(await ident?.tokens.get()).toEqual({ access_token: "idp-secret-token", id_token: "x.y.z" });
    const raw = await t.app.tableRepository("auth-idents", (await import("../../lib/auth/tables.ts")).identShape).get({ uuid: ident?.uuid as string });
    expect(JSON.stringify(raw)).not.toContain("idp-secret-token");
    expect(events.map((e) => e.name)).toEqual(["Authentication.Register", "Authentication.Login"]);
    expect(JSON.stringify(events)).not.toContain("idp-secret-token");
    expect(events[1]?.payload).toMatchObject({ user: login.user.uuid, provider: "idp" });
  });

  it("unlinks an ident but never the last one, and hides other users' idents", async () => {
    const t = emailApp({ verification: "after" });
    const { email } = await verifiedAccount(t);
    const browser = client(t);
    const login = (await browser.request("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).body as { access_token: string };
    const auth = { authorization: `Bearer ${login.access_token}` };
    const listed = (await browser.request("GET", "/auth/idents", { headers: auth })).body as { idents: { uuid: string }[] };
    expect(listed.idents.map((i) => i.uuid)).toEqual([`${email}:email`]);
    expect(await browser.request("DELETE", `/auth/idents/${encodeURIComponent(`${email}:email`)}`, { headers: auth })).toMatchObject({
      status: 409,
      body: { reason: "LAST_IDENT" },
    });
    expect((await browser.request("DELETE", `/auth/idents/${encodeURIComponent("someone@example.com:email")}`, { headers: auth })).status).toBe(404);
    await t.auth.loginWithProvider(Context.anonymous(), idp(email, true), { trustEmailVerification: true });
    expect((await browser.request("DELETE", `/auth/idents/${encodeURIComponent(`${email}:email`)}`, { headers: auth })).status).toBe(204);
    expect((await client(t).request("GET", "/auth/idents")).body).toMatchObject({ reason: "LOGIN_REQUIRED" });
  });
});
