import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../../../lib/auth/v3/field-map.ts";
import { migrate, type MigrationTables } from "../../../lib/auth/v3/migrate.ts";
import { v3Dataset, writeRows } from "../../../lib/auth/v3/seed-data.ts";
import { clients, freshTables, scanAll, seal, sealer, V3_IDP_ISSUER } from "./support.ts";
import { seeded as seededRandom } from "../../../bench/lib/order.ts";

const NOW = new Date("2026-01-02T03:04:05.000Z");
const { raw, client } = clients();
const data = v3Dataset({ idents: 600, cost: 4 });
const drops: (() => Promise<void>)[] = [];

class InjectedCrash extends Error {}

/**
 * A client that dies at its `at`-th transaction: before sending it (nothing of it happened) or
 * after DynamoDB committed it (the process died before it could record anything).
 */
function crashingClient(at: number, afterCommit: boolean): DynamoDBDocumentClient {
  const faulty = DynamoDBDocumentClient.from(clients().raw, { marshallOptions: { removeUndefinedValues: true } });
  let transactions = 0;
  faulty.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== "TransactWriteItemsCommand") return next(args);
      // This call's number, taken before it is sent: others may start while it is in flight.
      const n = ++transactions;
      if (n === at && !afterCommit) throw new InjectedCrash(`crash before transaction ${at}`);
      // Dies once DynamoDB has answered, whatever it answered (a cancelled transaction too).
      const answered = await next(args).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if (n === at) throw new InjectedCrash(`crash after transaction ${at}`);
      if ("error" in answered) throw answered.error;
      return answered.result;
    },
    { step: "initialize", name: "injectCrash" },
  );
  return faulty;
}

async function seeded(): Promise<MigrationTables> {
  const { tables, drop } = await freshTables(raw);
  drops.push(drop);
  await writeRows(client, tables.idents, data.idents);
  await writeRows(client, tables.users, data.users);
  return tables;
}

/** Table contents comparable across runs: sorted by key, sealed tokens opened. */
async function state(tables: MigrationTables): Promise<{ idents: Row[]; users: Row[] }> {
  const open = async (row: Row): Promise<Row> => (typeof row.tokens === "string" ? { ...row, tokens: await sealer.open(row.tokens) } : row);
  const byKey = (field: string) => (a: Row, b: Row) => String(a[field]).localeCompare(String(b[field]));
  const idents = await Promise.all((await scanAll(client, tables.idents)).map(open));
  return { idents: idents.sort(byKey("uuid")), users: (await scanAll(client, tables.users)).sort(byKey("uuid")) };
}

describe("a migration killed at a random point, then run again", () => {
  let reference: { idents: Row[]; users: Row[] };
  let transactions = 0;

  beforeAll(async () => {
    const tables = await seeded();
    const counting = DynamoDBDocumentClient.from(clients().raw, { marshallOptions: { removeUndefinedValues: true } });
    counting.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "TransactWriteItemsCommand") transactions++;
        return next(args);
      },
      { step: "initialize", name: "countTransactions" },
    );
    // One transaction at a time: the fewest a run can make (overlapping pages may split a page
    // whose case variant an earlier page still holds), so every crash point drawn is reached.
    await migrate({ client: counting, tables, idpIssuers: [V3_IDP_ISSUER], batch: 50, seal, now: () => NOW, concurrency: 1 });
    reference = await state(tables);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(drops.map((drop) => drop()));
    raw.destroy();
  });

  for (const seed of [1, 7, 42, 1234]) {
    it(`ends in the uninterrupted run's state, nothing lost or duplicated (seed ${seed})`, async () => {
      const next = seededRandom(seed);
      const at = 1 + Math.floor(next() * transactions);
      const afterCommit = next() < 0.5;
      const tables = await seeded();
      await expect(migrate({ client: crashingClient(at, afterCommit), tables, idpIssuers: [V3_IDP_ISSUER], batch: 50, seal, now: () => NOW })).rejects.toThrow(
        InjectedCrash,
      );
      const rerun = await migrate({ client, tables, idpIssuers: [V3_IDP_ISSUER], batch: 50, seal, now: () => NOW });
      expect(rerun.incomplete).toBe(false);
      const final = await state(tables);
      expect(final.idents.length).toBe(reference.idents.length);
      expect(new Set(final.idents.map((r) => r.uuid)).size).toBe(final.idents.length);
      expect(final).toEqual(reference);
    }, 120_000);
  }
});
