import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { definition } from "../../app/index.ts";
import { AuthenticationService } from "../../lib/auth/index.ts";
import { idpIdentKey, issuerlessIdpKey } from "../../lib/auth/idp-keys.ts";
import { IdpProvider } from "../../lib/auth/idp/provider.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { createUser, profileFields } from "../../lib/auth/users.ts";
import { migrate } from "../../lib/auth/v3/migrate.ts";
import { migrationTables } from "../../lib/auth/v3/setup.ts";
import { Application } from "../../lib/core/application.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { devIdpFixture, TEST_CLIENT_SECRET, type DevIdpFixture } from "./dev-idp-fixture.ts";
import { freshAuthPrefix } from "./fresh-auth-tables.ts";
import { callIdp, forgeIdToken } from "./idp-support.ts";
import { seal } from "./v3/support.ts";

/**
 * Attack 3 of issue 25: Idp idents were keyed `<sub>:idp`, without the issuer, so with two Idp
 * services the same `sub` at the second issuer logged into the first issuer's user and overwrote
 * its stored provider tokens. Two local OpenID providers (each its own issuer and signing key),
 * token login through the real route, on tables of its own per test.
 */
const APP = "https://app.test";
const SECRET = TEST_CLIENT_SECRET;

type Issuer = DevIdpFixture;
const first = devIdpFixture(APP);
const second = devIdpFixture(APP);

const idpService = (issuer: Issuer, url: string) => ({ type: "Framework/IdpProvider", url, issuer: issuer.idp.issuer, clientId: "test-client", redirects: { success: `${APP}/welcome`, failure: `${APP}/failed` } });

async function setup(issuers: Issuer[]) {
  const prefix = await freshAuthPrefix();
  const services: Record<string, { type: string } & Record<string, unknown>> = { ...definition.services };
  delete services.idp;
  issuers.forEach((issuer, i) => {
    services[i === 0 ? "idp" : `idp${i}`] = idpService(issuer, i === 0 ? "/auth/idp" : `/auth/idp${i}`);
  });
  const app = new Application({ ...definition, services }).useStore(dynamoStore(prefix));
  for (const entry of app.services()) if (entry.service instanceof IdpProvider) entry.service.useRuntime({ env: { ...process.env, IDP_CLIENT_SECRET: SECRET } });
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  return { app, auth, prefix, handler: httpHandler("auth", authDispatcher(app)) };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function login(s: Setup, issuer: Issuer, sub: string, tokens: Record<string, unknown> = {}) {
  const token = await forgeIdToken({ iss: issuer.idp.issuer, aud: "test-client", sub, email: `${randomUUID().slice(0, 8)}@example.com`, email_verified: true }, { keyFile: issuer.keyFile });
  return callIdp(s.handler, "POST", `${APP}/auth/idp/token`, { rawBody: JSON.stringify({ tokens: { id_token: token, ...tokens } }), headers: { "content-type": "application/json" } });
}

const userOf = (answer: { body: unknown }) => (answer.body as { user: { uuid: string } }).user.uuid;

/** An ident as it was written before idents carried their issuer. */
async function issuerlessRow(s: Setup, sub: string, form: "v4" | "v3"): Promise<string> {
  const info = s.auth.identityModel();
  const user = await createUser(s.app, info, profileFields(info, { name: "Early" }, `early-${randomUUID().slice(0, 8)}@example.com`));
  const now = new Date().toISOString();
  const item =
    form === "v4"
      ? { uuid: issuerlessIdpKey(sub), provider: "idp", providerUid: sub, user, createdAt: now, updatedAt: now, __version: 1 }
      : { uuid: `${sub}_idp`, _type: "idp", _user: user, __tokens: { access_token: "v3-at" } };
  await documentClient().send(new PutCommand({ TableName: `${s.prefix}auth-idents`, Item: item }));
  return user;
}

describe("Idp idents are keyed by issuer and subject", () => {
  it("the same sub at a second issuer is another person: its own user, and the first one's tokens stay", async () => {
    const s = await setup([first, second]);
    const sub = `shared-${randomUUID()}`;
    const one = await login(s, first, sub, { access_token: "first-issuer-at" });
    expect(one.status).toBe(200);
    const two = await login(s, second, sub, { access_token: "second-issuer-at" });
    expect(two.status).toBe(200);
    expect(userOf(two)).not.toBe(userOf(one));
    const firstIdent = await s.auth.idents.find("idp", sub, first.idp.issuer);
    expect(firstIdent).toMatchObject({ uuid: idpIdentKey(first.idp.issuer, sub), issuer: first.idp.issuer, user: userOf(one) });
    expect((await firstIdent?.tokens.get())?.access_token).toBe("first-issuer-at");
    expect((await s.auth.idents.find("idp", sub, second.idp.issuer))?.user).toBe(userOf(two));
    // Each logs in as itself again.
    expect(userOf(await login(s, first, sub))).toBe(userOf(one));
    expect(userOf(await login(s, second, sub))).toBe(userOf(two));
  });

  it("with one Idp configured, an issuerless <sub>:idp row is its: moved to the issuer's key at login", async () => {
    const s = await setup([first]);
    const sub = `early-${randomUUID()}`;
    const user = await issuerlessRow(s, sub, "v4");
    const answer = await login(s, first, sub);
    expect(answer.status).toBe(200);
    expect(userOf(answer)).toBe(user);
    const repository = s.app.tableRepository("auth-idents", (await import("../../lib/auth/tables.ts")).identShape);
    expect(await repository.get({ uuid: issuerlessIdpKey(sub) })).toBeUndefined();
    expect(await repository.get({ uuid: idpIdentKey(first.idp.issuer, sub) })).toMatchObject({ user, issuer: first.idp.issuer, provider: "idp" });
  });

  it("with one Idp configured, a v3 <sub>_idp row is upgraded to the issuer's key at login", async () => {
    const s = await setup([first]);
    const sub = `v3-${randomUUID()}`;
    const user = await issuerlessRow(s, sub, "v3");
    const answer = await login(s, first, sub);
    expect(answer.status).toBe(200);
    expect(userOf(answer)).toBe(user);
    expect(await s.auth.idents.find("idp", sub, first.idp.issuer)).toMatchObject({ uuid: idpIdentKey(first.idp.issuer, sub), user });
  });

  it("with several Idps configured, an issuerless row is refused, naming the migration, and nothing is created", async () => {
    const s = await setup([first, second]);
    for (const form of ["v4", "v3"] as const) {
      const sub = `early-${form}-${randomUUID()}`;
      const user = await issuerlessRow(s, sub, form);
      for (const issuer of [first, second]) {
        const answer = await login(s, issuer, sub);
        expect(answer).toMatchObject({ status: 409, body: { reason: "IDENT_MIGRATION_REQUIRED", message: expect.stringContaining("webda auth migrate") } });
        expect(answer.cookies).toEqual([]);
        expect(await s.auth.idents.listByUser(user)).toHaveLength(form === "v4" ? 1 : 0);
      }
    }
  });

  it("webda auth migrate assigns issuerless rows to the one configured Idp, and refuses to guess among several", async () => {
    const s = await setup([first]);
    const subs = { v4: `m-v4-${randomUUID()}`, v3: `m-v3-${randomUUID()}` };
    const users = { v4: await issuerlessRow(s, subs.v4, "v4"), v3: await issuerlessRow(s, subs.v3, "v3") };
    const tables = migrationTables(s.app, s.prefix);
    const several = await migrate({ client: documentClient(), tables, seal, idpIssuers: [first.idp.issuer, second.idp.issuer] });
    expect(several.idents.failed.map((f) => [f.key, f.code]).sort()).toEqual([[`${subs.v3}_idp`, "IDP_ISSUER_UNKNOWN"], [issuerlessIdpKey(subs.v4), "IDP_ISSUER_UNKNOWN"]].sort());
    const one = await migrate({ client: documentClient(), tables, seal, idpIssuers: [first.idp.issuer] });
    expect(one.idents).toMatchObject({ migrated: 2, failed: [] });
    for (const form of ["v4", "v3"] as const) {
      expect(await s.auth.idents.find("idp", subs[form], first.idp.issuer)).toMatchObject({ uuid: idpIdentKey(first.idp.issuer, subs[form]), issuer: first.idp.issuer, user: users[form] });
    }
    expect((await migrate({ client: documentClient(), tables, seal, idpIssuers: [first.idp.issuer] })).idents).toMatchObject({ migrated: 0, failed: [] });
  });
});

describe("an issuerless row cannot pose as an issuer-keyed one", () => {
  it("a sub chosen as '<victim sub>@<tag>' at another issuer (stored before issuers were keyed) is refused, not taken for the victim's", async () => {
    const s = await setup([first]);
    const victimSub = `victim-${randomUUID()}`;
    // What the old code wrote for a second issuer's sub "<victim sub>@<first issuer's tag>".
    await issuerlessRow(s, idpIdentKey(first.idp.issuer, victimSub).slice(0, -":idp".length), "v4");
    const answer = await login(s, first, victimSub);
    expect(answer).toMatchObject({ status: 409, body: { reason: "IDENT_MIGRATION_REQUIRED" } });
    expect(answer.cookies).toEqual([]);
  });
});
