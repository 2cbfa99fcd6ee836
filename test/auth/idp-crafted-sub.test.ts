import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createUser, profileFields } from "../../lib/auth/users.ts";
import { idpIdentKey, issuerTag, unescapedIdpKey } from "../../lib/auth/idp-keys.ts";
import { migrate } from "../../lib/auth/v3/migrate.ts";
import { migrationTables } from "../../lib/auth/v3/setup.ts";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { devIdpFixture } from "./dev-idp-fixture.ts";
import { APP, login, setup, userOf, type Issuer, type Setup } from "./idp-issuers-support.ts";
import { seal } from "./v3/support.ts";

/**
 * A `sub` chosen to spell another identity's key. Idp ident keys were `<sub>@<issuer tag>:idp`
 * and legacy ones `<sub>:idp`: a login whose sub was `<victim sub>@<tag>` looked for the legacy
 * row `<victim sub>@<tag>:idp`, which was the victim's own row, and moved it under the attacker's
 * key with the victim's user; with two issuers the same lookup answered 409 or 200 depending on
 * whether the victim had an account. The tag is public (a hash of the issuer URL). Real token
 * logins through the route, against two local OpenID providers.
 */
const first = devIdpFixture(APP);
const second = devIdpFixture(APP);

const crafted = (victimSub: string, issuer: Issuer) => `${victimSub}@${issuerTag(issuer.idp.issuer)}`;

async function rowAt(s: Setup, key: string) {
  return (await documentClient().send(new GetCommand({ TableName: `${s.prefix}auth-idents`, Key: { uuid: key }, ConsistentRead: true }))).Item;
}

describe("a crafted sub cannot reach another identity's ident", () => {
  it("a login whose sub is '<victim sub>@<tag>' gets an account of its own; the victim keeps theirs", async () => {
    const s = await setup([first]);
    const victimSub = `victim-${randomUUID()}`;
    const victim = await login(s, first, victimSub, { access_token: "victim-at" });
    expect(victim.status).toBe(200);

    const attack = await login(s, first, crafted(victimSub, first), { access_token: "attacker-at" });
    expect(attack.status).toBe(200);
    expect(userOf(attack)).not.toBe(userOf(victim));

    const victimRow = await rowAt(s, idpIdentKey(first.idp.issuer, victimSub));
    expect(victimRow).toMatchObject({ user: userOf(victim), providerUid: victimSub, issuer: first.idp.issuer });
    const ident = await s.auth.idents.find("idp", victimSub, first.idp.issuer);
    expect((await ident?.tokens.get())?.access_token).toBe("victim-at");
    expect(userOf(await login(s, first, victimSub))).toBe(userOf(victim));
    expect(userOf(await login(s, first, crafted(victimSub, first)))).toBe(userOf(attack));
  });

  it("a login at issuer A with sub '<x>@<tag of B>' answers alike whether x has an account at B or not", async () => {
    const s = await setup([first, second]);
    const known = `known-${randomUUID()}`;
    expect((await login(s, second, known)).status).toBe(200);
    const unknown = `unknown-${randomUUID()}`;

    const probeKnown = await login(s, first, crafted(known, second));
    const probeUnknown = await login(s, first, crafted(unknown, second));
    expect(probeKnown.status).toBe(200);
    expect(probeUnknown.status).toBe(probeKnown.status);
    const shape = (answer: { body: unknown }) => Object.keys(answer.body as object).sort();
    expect(shape(probeUnknown)).toEqual(shape(probeKnown));
    // The account at B is untouched and still B's.
    expect(await rowAt(s, idpIdentKey(second.idp.issuer, known))).toMatchObject({ providerUid: known, issuer: second.idp.issuer });
  });
});

describe("rows keyed before subs were escaped", () => {
  async function unescapedRow(s: Setup, sub: string): Promise<string> {
    const info = s.auth.identityModel();
    const user = await createUser(s.app, info, profileFields(info, { name: "Earlier" }, `earlier-${randomUUID().slice(0, 8)}@example.com`));
    const now = new Date().toISOString();
    const item = {
      uuid: unescapedIdpKey(first.idp.issuer, sub),
      provider: "idp",
      providerUid: sub,
      issuer: first.idp.issuer,
      user,
      createdAt: now,
      updatedAt: now,
      __version: 1,
    };
    await documentClient().send(new PutCommand({ TableName: `${s.prefix}auth-idents`, Item: item }));
    return user;
  }

  it("are found by the login of their own issuer and sub, and moved to the escaped key", async () => {
    const s = await setup([first]);
    const sub = `mail:${randomUUID()}@example.com`;
    const user = await unescapedRow(s, sub);
    const answer = await login(s, first, sub);
    expect(answer.status).toBe(200);
    expect(userOf(answer)).toBe(user);
    expect(await rowAt(s, unescapedIdpKey(first.idp.issuer, sub))).toBeUndefined();
    expect(await rowAt(s, idpIdentKey(first.idp.issuer, sub))).toMatchObject({ user, providerUid: sub });
  });

  it("are moved by webda auth migrate; rows already at their key are left alone", async () => {
    const s = await setup([first]);
    const sub = `mail:${randomUUID()}@example.com`;
    const user = await unescapedRow(s, sub);
    const plain = await login(s, first, `plain-${randomUUID()}`);
    const report = await migrate({ client: documentClient(), tables: migrationTables(s.app, s.prefix), seal, idpIssuers: [first.idp.issuer] });
    expect(report.idents).toMatchObject({ migrated: 1, failed: [] });
    expect(await rowAt(s, idpIdentKey(first.idp.issuer, sub))).toMatchObject({ user, providerUid: sub, issuer: first.idp.issuer });
    expect(await rowAt(s, unescapedIdpKey(first.idp.issuer, sub))).toBeUndefined();
    expect(userOf(await login(s, first, sub))).toBe(user);
    expect(plain.status).toBe(200);
  });
});
