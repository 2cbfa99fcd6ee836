import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { MigrationTables } from "../../../lib/auth/v3/migrate.ts";
import type { MigrationReport } from "../../../lib/auth/v3/report.ts";
import { MALFORMED_KEY, v3Dataset, writeRows } from "../../../lib/auth/v3/seed-data.ts";
import { clients, freshTables } from "./support.ts";

const { raw, client } = clients();
const data = v3Dataset({ idents: 300, cost: 4, malformed: true });

/** `npx webda auth migrate ...` as a user runs it: the package's bin, a real process. */
function webda(args: string[], prefix: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/webda.mjs", "auth", "migrate", ...args],
      { env: { ...process.env, TABLE_PREFIX: prefix, DYNAMODB_ENDPOINT: inject("dynamodbEndpoint"), APP_SECRET: "cli-test-secret" }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("npx webda auth migrate", () => {
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

  it("refuses bad arguments with exit code 2 in one line pointing at the usage", async () => {
    const run = await webda(["--batch", "0"], prefix);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toEqual(['webda auth migrate: --batch: expected a whole number from 1 to 1000, got "0" (webda auth migrate --help)']);
  });

  it("stops at the malformed key (exit 5, the row named), then migrates (exit 3: conflicts), then has nothing left", async () => {
    const aborted = await webda(["--json"], prefix);
    expect(aborted.code).toBe(5);
    const first = JSON.parse(aborted.stdout) as MigrationReport;
    expect(first.aborted?.key).toBe(MALFORMED_KEY);
    // Our own command, not the AWS CLI (which many users do not have, and which needs a region).
    expect(first.aborted?.guidance).toContain(`npx webda db delete --table ${tables.idents} --key '${MALFORMED_KEY}'`);
    expect(first.incomplete).toBe(true);

    await client.send(new DeleteCommand({ TableName: tables.idents, Key: { uuid: MALFORMED_KEY } }));
    const done = await webda(["--json", "--batch", "40"], prefix);
    expect(done.code).toBe(3);
    const second = JSON.parse(done.stdout) as MigrationReport;
    expect(first.idents.migrated + second.idents.migrated).toBe(data.expected.identsMigrated);
    expect(second.idents.failed).toHaveLength(data.expected.identConflicts);
    expect(second.incomplete).toBe(false);

    const again = await webda([], prefix);
    expect(again.code).toBe(3);
    expect(again.stdout).toMatch(/idents +migrated 0, skipped \d+, failed \d+/);
    expect(again.stdout).toContain("IDENT_CONFLICT");
    // Not a terminal: progress comes as plain lines (or none for a short run), never a bar.
    expect(again.stderr).not.toContain("\r");
  }, 240_000);
});
