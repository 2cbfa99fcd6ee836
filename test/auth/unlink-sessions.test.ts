import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Context } from "../../lib/core/context.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";

/**
 * The attack: unlinking an ident (DELETE auth/idents/{ident}) leaving the sessions that
 * ident's logins had opened alive for their 30 days, with working refresh and access tokens: a
 * user who unlinks a provider account because it was taken over kept its holder signed in.
 */
describe("unlinking an ident ends the sessions it opened", () => {
  it("the Idp's sessions end (cookie, refresh and access token); the password session that unlinked stays", async () => {
    const t = emailApp({ verification: "none" });
    const email = newEmail();
    const password = client(t);
    const registered = await password.request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    expect(registered.status).toBe(200);
    const owner = (registered.body as { user: { uuid: string }; access_token: string }).user.uuid;
    const sub = `sub-${randomUUID()}`;
    const identity = { provider: "idp" as const, providerUid: sub, issuer: "https://idp.test.example", emailVerified: true, profile: { name: "Ida" } };
    // Link the Idp identity to the account (logged-in linking), then sign in with it elsewhere.
    await t.auth.loginWithProvider(Context.anonymous(), identity, { trustEmailVerification: true, linkTo: owner });
    const device = await t.auth.loginWithProvider(Context.anonymous(), identity, { trustEmailVerification: true });
    expect(device.user.uuid).toBe(owner);
    const other = client(t);
    other.jar.set("session", (device.setCookie.split(";")[0] as string).split("=")[1] as string);
    expect((await other.request("GET", "/auth/me")).body).toMatchObject({ uuid: owner });

    const ident = (await t.auth.idents.find("idp", sub, identity.issuer))?.uuid as string;
    const bearer = { authorization: `Bearer ${(registered.body as { access_token: string }).access_token}` };
    expect((await password.request("DELETE", `/auth/idents/${encodeURIComponent(ident)}`, { headers: bearer })).status).toBe(204);

    expect((await other.request("GET", "/auth/me")).body).toBeNull();
    expect((await client(t).request("GET", "/auth/me", { headers: { authorization: `Bearer ${device.access_token}` } })).body).toBeNull();
    expect(await client(t).request("POST", "/auth/refresh", { body: { refresh_token: device.refresh_token } })).toMatchObject({ status: 401 });
    // The session opened by the password is not the Idp's: it goes on.
    expect((await password.request("GET", "/auth/me")).body).toMatchObject({ uuid: owner });
    expect((await password.request("GET", "/auth/me", { headers: bearer })).body).toMatchObject({ uuid: owner });
  });
});
