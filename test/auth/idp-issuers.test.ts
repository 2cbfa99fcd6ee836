import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { idpIdentKey, issuerlessIdpKey } from "../../lib/auth/idp-keys.ts";
import { migrate } from "../../lib/auth/v3/migrate.ts";
import { migrationTables } from "../../lib/auth/v3/setup.ts";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { devIdpFixture } from "./dev-idp-fixture.ts";
import { APP, issuerlessRow, login, setup, userOf } from "./idp-issuers-support.ts";
import { seal } from "./v3/support.ts";

/**
 * The attack: Idp idents keyed `<sub>:idp`, without the issuer: with two Idp
 * services the same `sub` at the second issuer logged into the first issuer's user and overwrote
 * its stored provider tokens. Two local OpenID providers (each its own issuer and signing key),
 * token login through the real route, on tables of its own per test.
 */
const first = devIdpFixture(APP);
const second = devIdpFixture(APP);

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
    expect(several.idents.failed.map((f) => [f.key, f.code]).sort()).toEqual(
      [
        [`${subs.v3}_idp`, "IDP_ISSUER_UNKNOWN"],
        [issuerlessIdpKey(subs.v4), "IDP_ISSUER_UNKNOWN"],
      ].sort(),
    );
    const one = await migrate({ client: documentClient(), tables, seal, idpIssuers: [first.idp.issuer] });
    expect(one.idents).toMatchObject({ migrated: 2, failed: [] });
    for (const form of ["v4", "v3"] as const) {
      expect(await s.auth.idents.find("idp", subs[form], first.idp.issuer)).toMatchObject({
        uuid: idpIdentKey(first.idp.issuer, subs[form]),
        issuer: first.idp.issuer,
        user: users[form],
      });
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
