import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { describeModel } from "../../lib/core/model-info.ts";
import { Model } from "../../lib/core/model.ts";
import type { TableShape } from "../../lib/core/model-info.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { parseQuery } from "../../lib/query/index.ts";
import { KEPT, LEGACY_SIZE, MAX_PAGE, SEEN } from "../../lib/store/dynamodb-cursor.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import type { Cursor, Item, ListRequest } from "../../lib/store/repository.ts";

// Items DynamoDB evaluates per row a listing returns, followed page by page to its end, on a table
// of ROWS rows whose `score` is spread evenly over 0..999 (so `score < 500` keeps half, `score < 10`
// one in a hundred).
const ROWS = 2_000;
const SHAPE: TableShape = { key: { hash: "id" }, indexes: [{ name: "by_group", hash: "group", range: "rank" }] };

const endpoint = inject("dynamodbEndpoint");
const documents = createDocumentClient(endpoint);
const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
const tableName = `amplification-${process.pid}-Scored`;
afterAll(() => {
  documents.destroy();
  admin.destroy();
});

/** What each Query or Scan asked (its Limit) and evaluated (ScannedCount); a GetItem evaluates one. */
const calls: { command: string; limit?: number; scanned: number }[] = [];
documents.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    const command = (context.commandName ?? "").replace(/Command$/, "");
    const output = result.output as { ScannedCount?: number; Item?: unknown };
    const { Limit } = args.input as { Limit?: number };
    if (command === "Query" || command === "Scan") calls.push({ command, ...(Limit !== undefined ? { limit: Limit } : {}), scanned: output.ScannedCount ?? 0 });
    if (command === "GetItem") calls.push({ command, scanned: 1 });
    return result;
  },
  { step: "initialize", name: "countEvaluated" },
);

/** A deterministic spread of 0..999 that does not follow `i` (scan order and index order differ). */
function scoreOf(i: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % 1000;
}

const rowOf = (i: number): Item => ({ id: `r${String(i).padStart(5, "0")}`, group: "all", rank: i, score: scoreOf(i), __version: 1 });
const repository = () => new DynamoRepository(documents, tableName, SHAPE);

beforeAll(async () => {
  const model = class extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = ["id"];
    static override readonly schema = {
      type: "object" as const,
      properties: { id: { type: "string" }, group: { type: "string" }, rank: { type: "number" }, score: { type: "number" } },
    };
    static {
      Object.defineProperty(this, "name", { value: "Scored" });
    }
  };
  await ensureTables(admin, [tableDefinition({ ...describeModel(model), table: SHAPE }, `amplification-${process.pid}-`)]);
  const batches = Array.from({ length: ROWS / 25 }, (_, b) => Array.from({ length: 25 }, (_, k) => rowOf(b * 25 + k)));
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(
      batches
        .slice(i, i + 8)
        .map((rows) => documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: rows.map((Item) => ({ PutRequest: { Item } })) } }))),
    );
  }
}, 120_000);

interface Traversal {
  rows: Item[];
  evaluated: number;
  requests: number;
  mostPerRequest: number;
}

/** Follows `q` page by page to its end, as a client does with its continuation tokens. */
async function traverse(q: string, limit: number, extra: Partial<ListRequest> = {}): Promise<Traversal> {
  const { where, orderBy } = parseQuery(q);
  const rows: Item[] = [];
  let after: Cursor | undefined;
  let evaluated = 0;
  let requests = 0;
  let mostPerRequest = 0;
  do {
    calls.length = 0;
    const page = await repository().list({ ...(where ? { where } : {}), orderBy, limit, maxRead: MAX_PAGE, ...extra, ...(after ? { after } : {}) });
    const spent = calls.reduce((sum, c) => sum + c.scanned, 0);
    // The page reports what it evaluated: its calls' ScannedCount and the look-ahead's read.
    expect(page.scanned).toBe(spent);
    evaluated += spent;
    mostPerRequest = Math.max(mostPerRequest, spent);
    requests++;
    rows.push(...page.items);
    after = page.next;
  } while (after && requests < 5_000);
  return { rows, evaluated, requests, mostPerRequest };
}

const all = Array.from({ length: ROWS }, (_, i) => rowOf(i));

describe("reads that follow the filter's selectivity (DynamoDB Local)", () => {
  for (const [share, bound] of [
    [500, 500],
    [10, 10],
  ] as const) {
    const expected = all.filter((r) => (r.score as number) < bound);
    // The fewest items any Scan or Query with this filter can evaluate per row it returns.
    const floor = ROWS / expected.length;
    for (const limit of [10, 100]) {
      for (const ordered of [false, true]) {
        const q = ordered ? `group = 'all' AND score < ${bound} ORDER BY rank DESC` : `score < ${bound}`;
        it(`${share / 10}% of the rows, limit ${limit}, ${ordered ? "ordered (a Query)" : "unordered (a Scan)"}: at most 3x the floor of items read per row, every row once`, async () => {
          const { rows, evaluated, mostPerRequest } = await traverse(q, limit);
          expect(rows.length).toBe(expected.length);
          expect(new Set(rows.map((r) => r.id)).size).toBe(expected.length);
          if (ordered) expect(rows.map((r) => r.rank)).toEqual(expected.map((r) => r.rank).reverse());
          const perRow = evaluated / rows.length;
          expect(perRow).toBeLessThanOrEqual(3 * floor);
          // A dense filter: about two items per row (the 62 came from a size that only grew).
          if (share === 500) expect(perRow).toBeLessThanOrEqual(3);
          expect(mostPerRequest).toBeLessThanOrEqual(MAX_PAGE);
        }, 120_000);
      }
    }
  }

  it("reads a plain page as limit + 1 items; a later page, which starts at its look-ahead, limit more", async () => {
    calls.length = 0;
    const first = await repository().list({ limit: 10, maxRead: MAX_PAGE });
    expect(calls.map((c) => c.limit)).toEqual([11]);
    calls.length = 0;
    await repository().list({ limit: 10, maxRead: MAX_PAGE, ...(first.next ? { after: first.next } : {}) });
    expect(calls.map((c) => [c.command, c.limit])).toEqual([
      ["GetItem", undefined],
      ["Scan", 10],
    ]);
  });

  it("keeps to the read budget whatever estimate a cursor carries, and drops an earlier token's size", async () => {
    const { where } = parseQuery("score < 10");
    const first = await repository().list({ ...(where ? { where } : {}), limit: 10, maxRead: 40 });
    expect(first.next).toBeDefined();
    const key = { id: (first.next as Cursor).id as string };
    const forgeries: Cursor[] = [{ [KEPT]: 0, [SEEN]: 2_000 }, { [KEPT]: -5, [SEEN]: 1e12 }, { [KEPT]: 3, [SEEN]: 1 }, { [LEGACY_SIZE]: 1e9 }];
    for (const forged of forgeries) {
      calls.length = 0;
      const page = await repository().list({ ...(where ? { where } : {}), limit: 10, maxRead: 40, after: { ...key, ...forged } });
      expect(calls.reduce((sum, c) => sum + c.scanned, 0)).toBeLessThanOrEqual(40);
      expect(calls.every((c) => (c.limit ?? 1) <= 40)).toBe(true);
      expect(page.next?.[LEGACY_SIZE]).toBeUndefined();
    }
  });
});
