import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../../app/index.ts";
import { handler } from "../../../functions/migrate.ts";
import { keyShape } from "../../../lib/auth/v3/format.ts";
import { runMigrationInvocation } from "../../../lib/auth/v3/lambda.ts";
import type { MigrationTables } from "../../../lib/auth/v3/migrate.ts";
import { v3Dataset, writeRows } from "../../../lib/auth/v3/seed-data.ts";
import { clients, freshTables, scanAll } from "./support.ts";

const { raw, client } = clients();
const data = v3Dataset({ idents: 1_000, cost: 4 });

describe("the authMigrate function", () => {
  let tables: MigrationTables;
  let prefix: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ tables, drop } = await freshTables(raw));
    prefix = tables.idents.slice(0, -"auth-idents".length);
    await writeRows(client, tables.idents, data.idents);
    await writeRows(client, tables.users, data.users);
  }, 120_000);

  afterAll(async () => {
    await drop();
    raw.destroy();
  });

  it("refuses a malformed event with a 400 report and touches nothing", async () => {
    const context = { getRemainingTimeInMillis: () => 900_000 } as Context;
    expect(await handler({ dryRun: "yes", batch: 0 }, context)).toEqual({
      code: 400,
      message: "Invalid event",
      errors: [
        { path: "/dryRun", message: "must be a boolean" },
        { path: "/batch", message: "must be a whole number from 1 to 1000" },
      ],
    });
  });

  it("stops before its deadline reporting incomplete, and the next invocation finishes", async () => {
    // Lambda's clock, made of page counts: plenty of time for 4 pages, then inside the reserve.
    let asked = 0;
    const first = await runMigrationInvocation({ batch: 100 }, { app, client, prefix, secret: () => "s", remainingMs: () => (++asked <= 4 ? 600_000 : 9_000) });
    expect(first).toMatchObject({ incomplete: true, exitCode: 4 });
    if ("code" in first) throw new Error("unexpected 400");
    expect(first.reason).toContain("run again");
    expect(first.idents.migrated).toBeGreaterThan(0);
    expect(first.idents.migrated).toBeLessThan(data.expected.identsMigrated);
    const halfway = await scanAll(client, tables.idents);
    expect(halfway.some((row) => keyShape(row).kind === "v3" && row._type === "email")).toBe(true);

    const second = await runMigrationInvocation({}, { app, client, prefix, secret: () => "s", remainingMs: () => 600_000 });
    if ("code" in second) throw new Error("unexpected 400");
    expect(second.incomplete).toBe(false);
    expect(first.idents.migrated + second.idents.migrated).toBe(data.expected.identsMigrated);
    expect(first.users.migrated + second.users.migrated).toBe(data.expected.usersMigrated);
    expect(second.idents.failed).toHaveLength(data.expected.identConflicts);
    expect(second.exitCode).toBe(3);
  }, 120_000);
});
