import { PutCommand } from "@aws-sdk/lib-dynamodb";
import bcrypt from "bcryptjs";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { app as blog } from "../../fixtures/blog/index.ts";
import { migrationTables } from "../../../lib/auth/v3/setup.ts";
import { documentClient } from "../../../lib/store/dynamodb-client.ts";
import { client, emailApp, PASSWORD, profile } from "../client.ts";

/**
 * The attack: in `after` and `none` mode, registration creating the v4 ident under its key
 * without asking the v3 compatibility hook, so the address of an account not yet migrated could
 * be taken by anyone (a second account on it; the v3 owner's next login then met the newcomer's).
 */
const tables = migrationTables(blog, process.env.TABLE_PREFIX ?? "blog-test-");
const V3_PASSWORD = "the v3 owner's password";
const HASH = bcrypt.hashSync(V3_PASSWORD, 4);

async function v3Account(): Promise<{ user: string; email: string }> {
  const user = randomUUID();
  const email = `v3-owner-${user.slice(0, 8)}@example.com`;
  await documentClient().send(
    new PutCommand({ TableName: tables.users, Item: { uuid: user, username: `v3${user.slice(0, 6)}`, email, name: "Vee Three", __password: HASH } }),
  );
  await documentClient().send(
    new PutCommand({ TableName: tables.idents, Item: { uuid: `${email}_email`, _type: "email", _user: user, email, _validation: "2023-01-02T00:00:00.000Z" } }),
  );
  return { user, email };
}

describe("registration meets not-yet-migrated v3 accounts in every verification mode", () => {
  for (const verification of ["after", "none"] as const) {
    it(`${verification}: the address of a v3 account is taken (ACCOUNT_EXISTS), and its owner still logs in`, async () => {
      const t = emailApp({ verification });
      const { user, email } = await v3Account();
      const answer = await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
      expect(answer).toMatchObject({ status: 409, body: { reason: "ACCOUNT_EXISTS" } });
      expect(answer.cookies.some((c) => c.startsWith("session="))).toBe(false);
      const login = await client(t).request("POST", "/auth/email/login", { body: { email, password: V3_PASSWORD } });
      expect(login).toMatchObject({ status: 200, body: { user: { uuid: user } } });
      expect(await t.auth.idents.listByUser(user)).toHaveLength(1);
    });
  }

  it("an address no account holds still registers", async () => {
    const t = emailApp({ verification: "none" });
    const email = `v3-free-${randomUUID().slice(0, 8)}@example.com`;
    expect((await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);
  });
});
