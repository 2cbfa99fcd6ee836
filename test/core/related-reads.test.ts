import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { PasswordBehavior } from "../../lib/core/behaviors/password.ts";
import type { Context } from "../../lib/core/context.ts";
import { Model, type Action, type Decision, type Related } from "../../lib/core/model.ts";
import { belongsTo } from "../../lib/core/relations.ts";
import { Type } from "../../lib/core/schema.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { as, failure } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

/** What the policies saw of their related records, in the order they asked. */
const seen: (Record<string, unknown> | undefined)[] = [];

class Account extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["handle"] as const;
  static override readonly schema = Type.Object({ handle: Type.String(), secretNote: Type.Optional(Type.String()) });
  static override readonly behaviors = { password: PasswordBehavior };
  static override readonly fieldReaders = { secretNote: () => false };
  override canAct(): Decision {
    return true;
  }
}

class Note extends Model {
  static override readonly schema = Type.Object({ uuid: Type.String(), text: Type.String(), account: Type.String() });
  static override readonly relations = { account: belongsTo(() => Account) };
  override async canAct(_ctx: Context, action: Action, related: Related): Promise<Decision> {
    const account = await related.get("account");
    seen.push(account === undefined ? undefined : { ...account });
    // A policy changing what it was given changes nothing the next policy sees.
    if (account) account.handle = "changed by a policy";
    if (action === "read" || action === "create") return account ? true : "no such account";
    return (await related.get("nothing")) ? true : "unreachable";
  }
}

function app(): Application {
  return new Application({ name: "related", version: "0", models: [Account, Note], serviceTypes: [], services: {} }, inProcess).useStore(memoryStore);
}

describe("a policy's related records", () => {
  it("are the stored records without `__` fields or behavior state, hidden fields included, copies for each policy", async () => {
    const related = app();
    const Accounts = related.model("Account");
    const Notes = related.model("Note");
    if (!Accounts || !Notes) throw new Error("models missing");
    await related
      .repository(Accounts)
      .create({ handle: "ann", secretNote: "s", password: { hash: "scrypt$..." }, __internal: 1, createdAt: "x", updatedAt: "x" });
    seen.length = 0;
    const { data } = await related.domain.create(as("u1"), Notes, { text: "hi", account: "ann" });
    await related.domain.get(as("u1"), Notes, { uuid: data.uuid as string });
    // The create's decisions and the get's: each policy given its own copy of the stored account.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const account of seen) expect(account).toEqual({ handle: "ann", secretNote: "s", createdAt: "x", updatedAt: "x" });
    expect((await related.domain.get(as("u1"), Accounts, { handle: "ann" })).data.handle).toBe("ann");
  });

  it("refuse a relation the model does not declare, as a programming error", async () => {
    const related = app();
    const Notes = related.model("Note");
    if (!Notes) throw new Error("model missing");
    await related
      .repository(related.model("Account") as NonNullable<ReturnType<Application["model"]>>)
      .create({ handle: "bo", createdAt: "x", updatedAt: "x" });
    const { data } = await related.domain.create(as("u1"), Notes, { text: "hi", account: "bo" });
    await expect(related.domain.delete(as("u1"), Notes, { uuid: data.uuid as string })).rejects.toThrow("Note has no belongs-to relation 'nothing'");
    await expect(failure(related.domain.create(as("u1"), Notes, { text: "hi", account: "nobody" }))).resolves.toMatchObject({
      status: 403,
      message: "no such account",
    });
  });
});
