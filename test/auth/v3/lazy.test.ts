import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import bcrypt from "bcryptjs";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { upgradeIdent, type Row } from "../../../lib/auth/v3/field-map.ts";
import { migrate } from "../../../lib/auth/v3/migrate.ts";
import { migrationTables } from "../../../lib/auth/v3/setup.ts";
import { TokenSealer } from "../../../lib/auth/v3/tokens.ts";
import { app as blog } from "../../fixtures/blog/index.ts";
import { documentClient } from "../../../lib/store/dynamodb-client.ts";
import { emailApp } from "../client.ts";
import { configuredIssuers, idpIdentKey } from "../../../lib/auth/idp-keys.ts";

// The global setup's tables (the same ones the auth service uses), one fresh user per test.
const prefix = process.env.TABLE_PREFIX ?? "blog-test-";
const tables = migrationTables(blog, prefix);
const client: DynamoDBDocumentClient = documentClient();
const PASSWORD = "v3-password-of-the-user";
const HASH = bcrypt.hashSync(PASSWORD, 4);

async function v3User(options: { email?: string; keyCase?: string; idp?: boolean; failed?: number } = {}): Promise<{ user: string; email: string }> {
  const user = randomUUID();
  const email = options.email ?? `v3-${user.slice(0, 8)}@example.com`;
  await client.send(
    new PutCommand({
      TableName: tables.users,
      Item: { uuid: user, username: `v3${user.slice(0, 6)}`, email, name: "Vee Three", __password: HASH, _creationDate: "2023-01-01T00:00:00.000Z" },
    }),
  );
  await client.send(
    new PutCommand({
      TableName: tables.idents,
      Item: {
        uuid: `${options.keyCase ?? email}_email`,
        _type: "email",
        _user: user,
        email,
        _validation: "2023-01-02T00:00:00.000Z",
        ...(options.failed ? { _failedLogin: options.failed } : {}),
      },
    }),
  );
  if (options.idp) {
    await client.send(
      new PutCommand({ TableName: tables.idents, Item: { uuid: `sub-${user}_idp`, _type: "idp", _user: user, email, __tokens: { access_token: "at" } } }),
    );
  }
  return { user, email };
}

async function row(table: string, key: Record<string, string>): Promise<Row | undefined> {
  return (await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
}

const { auth, provider, app } = emailApp({ verification: "after" });
afterAll(() => client.destroy());

describe("v3 compatibility (compatibility.v3: true, the default)", () => {
  it("a v3 user logs in with the v3 password: ident upgraded, password rehashed into the v4 PHC format", async () => {
    const { user, email } = await v3User({ failed: 9 });
    const result = await provider.login(email, PASSWORD);
    expect(result.user).toMatchObject({ uuid: user });
    expect(await row(tables.idents, { uuid: `${email}_email` })).toBeUndefined();
    expect(await row(tables.idents, { uuid: `${email}:email` })).toMatchObject({
      provider: "email",
      user,
      verifiedAt: "2023-01-02T00:00:00.000Z",
      _loginAttempts: 0,
    });
    const stored = (await row(tables.users, { uuid: user })) as Row;
    expect((stored.password as Row).__hash).toMatch(/^\$scrypt\$/);
    expect(stored.__password).toBeUndefined();
    // The rehashed password works, a wrong one does not.
    await expect(provider.login(email, PASSWORD)).resolves.toMatchObject({ user: { uuid: user } });
    await expect(provider.login(email, "not the password")).rejects.toMatchObject({ status: 401 });
  });

  it("a wrong password against a v3 hash fails like any other", async () => {
    const { email } = await v3User();
    await expect(provider.login(email, "wrong password")).rejects.toMatchObject({ status: 401 });
    const ident = await row(tables.idents, { uuid: `${email}:email` });
    expect(ident?._loginAttempts).toBe(1);
  });

  it("login works during the migration (ident moved, user not yet) and after it (v3 hash in password.__hash)", async () => {
    const during = await v3User();
    const legacy = (await row(tables.idents, { uuid: `${during.email}_email` })) as Row;
    const sealer = new TokenSealer(app.secret());
    const upgraded = await upgradeIdent(legacy, "email", during.email, { seal: (t) => sealer.seal(t), now: new Date().toISOString() });
    await client.send(new PutCommand({ TableName: tables.idents, Item: upgraded }));
    await client.send(new DeleteCommand({ TableName: tables.idents, Key: { uuid: legacy.uuid } }));
    await expect(provider.login(during.email, PASSWORD)).resolves.toMatchObject({ user: { uuid: during.user } });

    const after = await v3User();
    const report = await migrate({ client, tables, seal: (t) => sealer.seal(t), batch: 100 });
    expect(report.incomplete).toBe(false);
    const migrated = (await row(tables.users, { uuid: after.user })) as Row;
    expect(migrated).toMatchObject({ password: { __hash: HASH } });
    await expect(provider.login(after.email, PASSWORD)).resolves.toMatchObject({ user: { uuid: after.user } });
    expect(((await row(tables.users, { uuid: after.user })) as Row).password).toMatchObject({ __hash: expect.stringMatching(/^\$scrypt\$/) });
  }, 60_000);

  it("listing a user's idents upgrades them; a case variant of an upgraded email is skipped and left untouched", async () => {
    const tag = randomUUID().slice(0, 8);
    const { user } = await v3User({ email: `lister-${tag}@example.com`, keyCase: `Lister-${tag}@Example.com`, idp: true });
    const variantKey = `LISTER-${tag.toUpperCase()}@EXAMPLE.COM_email`;
    await client.send(
      new PutCommand({ TableName: tables.idents, Item: { uuid: variantKey, _type: "email", _user: user, email: `LISTER-${tag}@EXAMPLE.COM` } }),
    );
    const expected = [`lister-${tag}@example.com:email`, idpIdentKey(configuredIssuers(app.services())[0] as string, `sub-${user}`)].sort();
    const listed = await auth.idents.listByUser(user);
    expect(listed.map((i) => i.uuid).sort()).toEqual(expected);
    expect(await listed.find((i) => i.provider === "idp")?.tokens.get()).toEqual({ access_token: "at" });
    const left = [await row(tables.idents, { uuid: `Lister-${tag}@Example.com_email` }), await row(tables.idents, { uuid: variantKey })].filter(Boolean);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ _type: "email", _user: user });
    // Listing again changes nothing and still skips the variant.
    expect((await auth.idents.listByUser(user)).map((i) => i.uuid).sort()).toEqual(expected);
  });
});

describe("compatibility.v3: false", () => {
  const off = emailApp({ verification: "after" }, { authentication: { type: "Framework/Authentication", compatibility: { v3: false } } });

  it("ignores legacy rows: a v3 ident neither logs in nor lists, and stays as it is", async () => {
    const { user, email } = await v3User();
    await expect(off.provider.login(email, PASSWORD)).rejects.toMatchObject({ status: 401 });
    expect(await off.auth.idents.listByUser(user)).toEqual([]);
    expect(await row(tables.idents, { uuid: `${email}_email` })).toMatchObject({ _type: "email", _user: user });
    expect(await row(tables.idents, { uuid: `${email}:email` })).toBeUndefined();
    expect(await row(tables.users, { uuid: user })).toMatchObject({ __password: HASH });
  });
});
