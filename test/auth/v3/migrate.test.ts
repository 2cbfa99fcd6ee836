import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upgradeIdent, type Row } from "../../../lib/auth/v3/field-map.ts";
import { isV4Provider, keyShape, v4Key } from "../../../lib/auth/v3/format.ts";
import { migrate, type MigrationTables } from "../../../lib/auth/v3/migrate.ts";
import { exitCode } from "../../../lib/auth/v3/report.ts";
import { v3Dataset, writeRows, type V3Dataset } from "../../../lib/auth/v3/seed-data.ts";
import { idpIdentKey } from "../../../lib/auth/idp-keys.ts";
import { clients, freshTables, scanAll, seal, sealer, V3_IDP_ISSUER } from "./support.ts";

const NOW = new Date("2026-01-02T03:04:05.000Z");
const { raw, client } = clients();

/** A v4 row with its sealed tokens opened, so that two runs' rows compare (each seal has its own IV). */
async function opened(row: Row): Promise<Row> {
  return typeof row.tokens === "string" ? { ...row, tokens: await sealer.open(row.tokens) } : row;
}

describe("webda auth migrate over 10,000 v3 idents on DynamoDB Local", () => {
  let tables: MigrationTables;
  let drop: () => Promise<void>;
  let data: V3Dataset;

  beforeAll(async () => {
    ({ tables, drop } = await freshTables(raw));
    data = v3Dataset({ idents: 10_000, cost: 4 });
    await writeRows(client, tables.idents, data.idents);
    await writeRows(client, tables.users, data.users);
  }, 120_000);

  afterAll(async () => {
    await drop();
  });

  it("the data set has what the issue lists: collisions, counters with and without timestamps, tokens", () => {
    expect(data.idents).toHaveLength(10_000);
    expect(data.expected.identConflicts).toBeGreaterThan(50);
    expect(data.expected.identsUnsupported).toBeGreaterThan(10);
    expect(data.idents.filter((r) => typeof r._failedLogin === "number" && r._lastFailedLogin === undefined).length).toBeGreaterThan(100);
    expect(data.idents.filter((r) => r.__tokens !== undefined && r._type === "idp").length).toBeGreaterThan(100);
  });

  it("a dry run counts what would migrate and conflict, and writes nothing", async () => {
    const report = await migrate({ client, tables, idpIssuers: [V3_IDP_ISSUER], dryRun: true, seal });
    expect(report.idents.migrated).toBe(data.expected.identsMigrated);
    expect(report.idents.failed).toHaveLength(data.expected.identConflicts);
    expect(report.idents.failed.every((f) => f.code === "IDENT_CONFLICT")).toBe(true);
    expect(report.idents.skipped).toBe(data.expected.identsUnsupported);
    expect(report.users.migrated).toBe(data.expected.usersMigrated);
    expect(report.incomplete).toBe(false);
    const idents = await scanAll(client, tables.idents);
    expect(idents).toHaveLength(data.idents.length);
    expect(idents.every((row) => keyShape(row).kind === "v3")).toBe(true);
    const users = await scanAll(client, tables.users);
    expect(users.every((row) => typeof row.__password === "string" && row.password === undefined)).toBe(true);
  });

  it("a full run maps every field, moves every key once and reports exact counts", async () => {
    const report = await migrate({ client, tables, idpIssuers: [V3_IDP_ISSUER], batch: 100, seal, now: () => NOW });
    expect(report.idents.migrated).toBe(data.expected.identsMigrated);
    expect(report.idents.failed).toHaveLength(data.expected.identConflicts);
    expect(report.idents.skipped).toBe(data.expected.identsUnsupported);
    expect(report.users).toMatchObject({ migrated: data.expected.usersMigrated, skipped: 0, failed: [] });
    expect(report.incomplete).toBe(false);
    expect(report.passes).toBe(2);
    expect(exitCode(report)).toBe(3);

    const after = new Map((await scanAll(client, tables.idents)).map((row) => [row.uuid as string, row]));
    // Every v3 row is either gone (its v4 row holds its fields) or, for the second of a case
    // collision and for unsupported providers, still there byte for byte.
    const byTarget = new Map<string, Row[]>();
    for (const row of data.idents) {
      const shape = keyShape(row);
      if (shape.kind !== "v3" || !isV4Provider(shape.provider)) {
        expect(after.get(row.uuid as string)).toEqual(row);
        continue;
      }
      const target = v4Key(shape.provider, shape.providerUid, V3_IDP_ISSUER);
      byTarget.set(target, [...(byTarget.get(target) ?? []), row]);
    }
    const conflicts = new Set(report.idents.failed.map((f) => f.key));
    for (const [target, rows] of byTarget) {
      const moved = rows.filter((row) => !after.has(row.uuid as string));
      expect(moved).toHaveLength(1);
      const source = moved[0] as Row;
      const shape = keyShape(source) as { provider: "email" | "idp"; providerUid: string };
      const expected = await upgradeIdent(source, shape.provider, shape.providerUid, { seal, now: NOW.toISOString(), issuer: V3_IDP_ISSUER });
      expect(await opened(after.get(target) as Row)).toEqual(await opened(expected));
      for (const left of rows.filter((row) => row !== source)) {
        expect(after.get(left.uuid as string)).toEqual(left);
        expect(conflicts.has(left.uuid as string)).toBe(true);
      }
    }
    expect(after.size).toBe(data.idents.length - data.expected.identsMigrated + byTarget.size);

    const users = await scanAll(client, tables.users);
    const original = new Map(data.users.map((u) => [u.uuid, u]));
    for (const user of users) {
      expect(user.__password).toBeUndefined();
      expect(user.password).toEqual({ __hash: original.get(user.uuid)?.__password });
      expect(user.__version).toBe(1);
    }
  }, 180_000);

  it("the field map: counters with and without timestamps, dates in both v3 forms, sealed tokens", async () => {
    const after = new Map((await scanAll(client, tables.idents)).map((row) => [row.uuid as string, row]));
    const locked = after.get("user2@example.com:email") as Row;
    expect(locked).toMatchObject({ _loginAttempts: 5, user: data.users[2]?.uuid, provider: "email", providerUid: "user2@example.com" });
    expect(locked._lastLoginAttemptAt).toBeUndefined();
    const counted = after.get("user8@example.com:email") as Row;
    expect(counted._loginAttempts).toBe(3);
    expect(counted._lastLoginAttemptAt).toBe(new Date(Date.UTC(2023, 0, 1) + 8 * 60_000 + 7_200_000).toISOString());
    const epochCounter = after.get("user10@example.com:email") as Row;
    expect(epochCounter._lastLoginAttemptAt).toBe(new Date(Date.UTC(2023, 0, 1) + 10 * 60_000 + 7_200_000).toISOString());
    const mixedCase = after.get("user13@example.com:email") as Row;
    expect(mixedCase).toMatchObject({ email: "user13@example.com", verifiedAt: new Date(Date.UTC(2023, 0, 1) + 13 * 60_000 + 1000).toISOString() });
    expect(after.has("User13@Example.com_email")).toBe(false);
    const throttled = after.get("user5@example.com:email") as Row;
    expect(throttled._throttle).toEqual({ lastSentAt: new Date(Date.UTC(2023, 0, 1) + 5 * 60_000 + 500).toISOString() });
    const idp = after.get(idpIdentKey(V3_IDP_ISSUER, "idp-sub-4")) as Row;
    expect(idp.__tokens).toBeUndefined();
    expect(typeof idp.tokens).toBe("string");
    expect(String(idp.tokens)).not.toContain("at-4");
    expect(await sealer.open(idp.tokens as string)).toMatchObject({ access_token: "at-4", refresh_token: "rt-4" });
    for (const row of after.values()) {
      if (keyShape(row).kind !== "v4") continue;
      for (const v3Field of ["_type", "_user", "_validation", "_failedLogin", "_lastFailedLogin", "_lastValidationEmail", "__tokens"]) {
        expect(row[v3Field], `${String(row.uuid)}.${v3Field}`).toBeUndefined();
      }
    }
  });

  it("a second run migrates nothing and reports the same conflicts", async () => {
    const report = await migrate({ client, tables, idpIssuers: [V3_IDP_ISSUER], seal });
    expect(report.idents.migrated).toBe(0);
    expect(report.users.migrated).toBe(0);
    expect(report.idents.failed).toHaveLength(data.expected.identConflicts);
    expect(report.passes).toBe(1);
    expect(report.incomplete).toBe(false);
  }, 120_000);
});

afterAll(() => raw.destroy());

describe("webda auth migrate's DynamoDB calls", () => {
  it("sends no transaction DynamoDB cancels: case variants met in a pass are known conflicts, later passes confirm them with a read", async () => {
    const { tables, drop } = await freshTables(raw);
    const calls = new Map<string, number>();
    let cancelled = 0;
    const counted = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        calls.set(String(context.commandName), (calls.get(String(context.commandName)) ?? 0) + 1);
        try {
          return await next(args);
        } catch (error) {
          if (error instanceof TransactionCanceledException) cancelled++;
          throw error;
        }
      },
      { step: "initialize", name: "countCalls" },
    );
    try {
      const small = v3Dataset({ idents: 1_000, cost: 4 });
      await writeRows(client, tables.idents, small.idents);
      const report = await migrate({ client: counted, tables, idpIssuers: [V3_IDP_ISSUER], batch: 100, seal, concurrency: 4 });
      expect(report.idents.migrated).toBe(small.expected.identsMigrated);
      expect(report.idents.failed).toHaveLength(small.expected.identConflicts);
      expect(small.expected.identConflicts).toBeGreaterThan(20);
      expect(cancelled).toBe(0);
      // The first pass reads nothing besides its scan; the second reads the keys its leftovers want.
      const secondPassPages = Math.ceil((small.expected.identsMigrated + small.expected.identConflicts + small.expected.identsUnsupported) / 100);
      expect(calls.get("BatchGetItemCommand") ?? 0).toBeLessThanOrEqual(secondPassPages);
      // Full transactions of 50 moves, and at most one partial one per page read.
      expect(calls.get("TransactWriteItemsCommand")).toBeLessThanOrEqual(Math.ceil(report.idents.migrated / 50) + (calls.get("ScanCommand") ?? 0));
    } finally {
      await drop();
    }
  }, 180_000);

  it("a confirming pass evaluates up to 1000 items per Scan call yet hands out pages of at most --batch rows", async () => {
    const { tables, drop } = await freshTables(raw);
    const scans: { table: string; limit: number }[] = [];
    const watched = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    // The document client shares the raw client's stack: removed in `finally` for later tests.
    watched.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TableName?: string; Limit?: number };
        if (context.commandName === "ScanCommand") scans.push({ table: String(input.TableName), limit: Number(input.Limit) });
        return next(args);
      },
      { step: "initialize", name: "watchScans" },
    );
    try {
      const small = v3Dataset({ idents: 600, cost: 4 });
      await writeRows(client, tables.idents, small.idents);
      const secondPass: number[] = [];
      const report = await migrate({
        client: watched,
        tables,
        batch: 5,
        idpIssuers: [V3_IDP_ISSUER],
        seal,
        onProgress: (p) => {
          if (p.pass === 2 && p.kind === "idents") secondPass.push(p.scanned);
        },
      });
      expect(report.passes).toBe(2);
      expect(report.idents.migrated).toBe(small.expected.identsMigrated);
      expect(report.idents.failed).toHaveLength(small.expected.identConflicts);
      expect(report.idents.skipped).toBe(small.expected.identsUnsupported);
      const identScans = scans.filter((s) => s.table === tables.idents);
      // The first pass reads 5 items a call (600 rows and the v4 rows written ahead of its cursor).
      expect(identScans.filter((s) => s.limit === 5).length).toBeGreaterThanOrEqual(120);
      // The second evaluates the ~600 rows left in one or two calls...
      const confirming = identScans.filter((s) => s.limit === 1000).length;
      expect(confirming).toBeGreaterThanOrEqual(1);
      expect(confirming).toBeLessThanOrEqual(2);
      expect(identScans.every((s) => s.limit === 5 || s.limit === 1000)).toBe(true);
      // ...and finds every v3 row still there (conflicts, unsupported providers), 5 at most a page.
      const seen = [0, ...secondPass.sort((a, b) => a - b)];
      expect(seen.at(-1)).toBe(small.expected.identConflicts + small.expected.identsUnsupported);
      expect(small.expected.identConflicts + small.expected.identsUnsupported).toBeGreaterThan(5);
      for (let i = 1; i < seen.length; i++) expect((seen[i] as number) - (seen[i - 1] as number)).toBeLessThanOrEqual(5);
    } finally {
      watched.middlewareStack.remove("watchScans");
      await drop();
    }
  }, 180_000);
});
