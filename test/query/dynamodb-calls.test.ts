import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { ensureTables } from "../../lib/local/tables.ts";
import { parseFilter, parseQuery, planDynamoQuery } from "../../lib/query/index.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import type { Item, Page } from "../../lib/store/repository.ts";
import { allPages, modelInfo, putItems } from "./support.ts";

/**
 * What the DynamoDB store actually sends for a query. Every call goes to DynamoDB Local and is
 * only observed on its way (an SDK middleware records the command, its index and DynamoDB's
 * counts), so the numbers below are the real cost of each read.
 */

interface Call {
  command: string;
  indexName?: string;
  scanForward?: boolean;
  /** Items DynamoDB returned after its filter, and items it read before it. */
  count?: number;
  scannedCount?: number;
  /** DynamoDB said there is more to read (LastEvaluatedKey). */
  more: boolean;
}

const comment = modelInfo(
  "Comment",
  ["uuid"],
  {
    uuid: { type: "string" },
    post: { type: "string" },
    createdAt: { type: "string" },
    body: { type: "string" },
    flagged: { type: "boolean" },
    likes: { type: "integer" },
  },
  [
    // What a `belongsTo` post relation derives, then a declared order of a post's comments by date.
    { name: "by_post", hash: "post", range: "uuid" },
    { name: "by_post_date", hash: "post", range: "createdAt" },
  ],
);
const prefix = `qcalls-${process.pid}-`;
const tableName = `${prefix}${comment.name}`;

const endpoint = inject("dynamodbEndpoint");
const documents = createDocumentClient(endpoint);
const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
const repository = new DynamoRepository(documents, tableName, comment.table);

const calls: Call[] = [];
documents.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    const input = args.input as { IndexName?: string; ScanIndexForward?: boolean };
    const output = result.output as { Count?: number; ScannedCount?: number; LastEvaluatedKey?: unknown };
    const call: Call = { command: context.commandName ?? "unknown", more: output.LastEvaluatedKey !== undefined };
    if (input.IndexName !== undefined) call.indexName = input.IndexName;
    if (input.ScanIndexForward !== undefined) call.scanForward = input.ScanIndexForward;
    if (output.Count !== undefined) call.count = output.Count;
    if (output.ScannedCount !== undefined) call.scannedCount = output.ScannedCount;
    calls.push(call);
    return result;
  },
  { step: "initialize", name: "recordDynamoCalls" },
);

const TOTAL = 1000;
const POSTS = 50;
/** The only flagged comments, spread over the key space so that a Scan meets them far apart. */
const FLAGGED = new Set([137, 512, 901]);
const START = Date.UTC(2024, 0, 1);

function commentAt(i: number): Item {
  const item: Item = {
    uuid: `c-${String(i).padStart(4, "0")}`,
    post: `post-${i % POSTS}`,
    createdAt: new Date(START + i * 60_000).toISOString(),
    body: FLAGGED.has(i) ? `spam ${i}` : `comment ${i}`,
    likes: i % 7,
    __version: 1,
  };
  if (FLAGGED.has(i)) item.flagged = true;
  else if (i % 3 === 0) item.flagged = false;
  return item;
}

let loadCalls: Call[] = [];

beforeAll(async () => {
  await ensureTables(admin, [tableDefinition(comment, prefix)]);
  calls.length = 0;
  await putItems(
    documents,
    tableName,
    Array.from({ length: TOTAL }, (_, i) => commentAt(i)),
  );
  loadCalls = [...calls];
}, 120_000);

afterAll(() => {
  documents.destroy();
  admin.destroy();
});

beforeEach(() => {
  calls.length = 0;
});

/** Lists one page and returns it with the calls that produced it. */
async function listPage(filter: string, limit: number, after?: Page["next"]): Promise<{ page: Page; calls: Call[] }> {
  const query = parseQuery(filter);
  calls.length = 0;
  const page = await repository.list({
    ...(query.where ? { where: query.where } : {}),
    orderBy: query.orderBy,
    limit,
    ...(after ? { after } : {}),
  });
  return { page, calls: [...calls] };
}

const commands = (recorded: readonly Call[]): string[] => [...new Set(recorded.map((call) => call.command))];

describe("DynamoDB calls behind a query", () => {
  it("loads the 1,000 comments with 40 BatchWrite requests of 25", async () => {
    expect(commands(loadCalls)).toEqual(["BatchWriteItemCommand"]);
    expect(loadCalls).toHaveLength(TOTAL / 25);
    const { page, calls: made } = await listPage("", 2000);
    expect(page.items).toHaveLength(TOTAL);
    expect(commands(made)).toEqual(["ScanCommand"]);
  });

  it("reads a post's comments with a Query on the by_post index, never a Scan", async () => {
    const { page, calls: made } = await listPage("post = 'post-7'", 100);
    expect(page.items).toHaveLength(TOTAL / POSTS);
    expect(page.items.every((item) => item.post === "post-7")).toBe(true);
    expect(page.next).toBeUndefined();
    expect(made).toEqual([{ command: "QueryCommand", indexName: "by_post", scanForward: true, count: 20, scannedCount: 20, more: false }]);
  });

  it("reads a table-key equality with a Query on the table itself", async () => {
    const { page, calls: made } = await listPage("uuid = 'c-0042' AND post = 'post-42'", 10);
    expect(page.items.map((item) => item.uuid)).toEqual(["c-0042"]);
    expect(made).toEqual([{ command: "QueryCommand", scanForward: true, count: 1, scannedCount: 1, more: false }]);
  });

  // The same three matches, once found by DynamoDB's filter and once by the residual `evaluate`
  // (a `_` pattern DynamoDB cannot express): in both, most reads return nothing.
  it.each([
    ["a filter expression", "flagged = TRUE"],
    ["a residual", "body LIKE 'spam _%'"],
  ])("finds 3 matches among 1,000 with limit 2 in exactly 2 pages through %s", async (_how, filter) => {
    const where = parseFilter(filter);
    if (where === undefined) throw new Error("empty filter");
    const plan = planDynamoQuery({ where, orderBy: [] }, comment.table);
    expect(plan.kind).toBe("scan");

    const first = await listPage(filter, 2);
    expect(first.page.items).toHaveLength(2);
    expect(first.page.next).toBeDefined();
    // DynamoDB's pages held too few matches (often none) but had more to read: the store kept
    // reading instead of ending the page early.
    expect(first.calls.length).toBeGreaterThan(1);
    expect(first.calls.slice(0, -1).every((call) => call.more)).toBe(true);
    expect(commands(first.calls)).toEqual(["ScanCommand"]);

    const second = await listPage(filter, 2, first.page.next);
    expect(second.page.items).toHaveLength(1);
    expect(second.page.next).toBeUndefined();
    // Page 2 opens with the record page 1's look-ahead found, then scans on from it.
    expect(second.calls[0]?.command).toBe("GetItemCommand");
    expect(commands(second.calls.slice(1))).toEqual(["ScanCommand"]);
    // The last call read to the end of the table: no page after it can hold a match.
    expect(second.calls.at(-1)?.more).toBe(false);

    const found = [...first.page.items, ...second.page.items].map((item) => item.uuid).sort();
    expect(found).toEqual(["c-0137", "c-0512", "c-0901"]);
    const scanned = [...first.calls, ...second.calls].reduce((sum, call) => sum + (call.scannedCount ?? 0), 0);
    // The look-ahead's position carries over: only the rest of the DynamoDB page it stopped in is
    // read again (before, page 2 re-read everything page 1 had crossed after its last item).
    expect(scanned).toBeGreaterThanOrEqual(TOTAL);
    expect(scanned).toBeLessThan(TOTAL * 1.2);
    console.info(`${filter}: page 1 took ${first.calls.length} Scans, page 2 took ${second.calls.length}; ${scanned} items read for 3 matches`);
  });

  it("compares with numbers beyond 2^53, and refuses those DynamoDB cannot hold before any call", async () => {
    // 1e21 is beyond 2^53: the SDK refuses it as a JS number, so it is sent as its decimal text.
    const big = await listPage("post = 'post-7' AND likes < 1e21", 100);
    expect(big.page.items).toHaveLength(TOTAL / POSTS);
    expect(big.calls).toMatchObject([{ command: "QueryCommand", indexName: "by_post", count: 20 }]);
    // 1e200 is beyond DynamoDB's range (it would reject the request): the query language refuses it.
    await expect(listPage("post = 'post-7' AND likes < 1e200", 100)).rejects.toMatchObject({ code: "BAD_QUERY" });
    await expect(listPage("post = 'post-7' AND likes < 1e400", 100)).rejects.toMatchObject({ code: "BAD_QUERY" });
  });

  it("orders a post's comments by date DESC on the by_post_date index across pages", async () => {
    const pages = await allPages(repository, { ...whereOf("post = 'post-7'"), orderBy: [{ field: "createdAt", direction: "DESC" }], limit: 3 });
    const items = pages.flatMap((page) => page.items);
    const dates = items.map((item) => String(item.createdAt));
    const expected = Array.from({ length: TOTAL }, (_, i) => commentAt(i))
      .filter((item) => item.post === "post-7")
      .map((item) => String(item.createdAt))
      .sort()
      .reverse();
    expect(pages).toHaveLength(Math.ceil(expected.length / 3));
    expect(pages.slice(0, -1).every((page) => page.items.length === 3 && page.next !== undefined)).toBe(true);
    expect(dates).toEqual(expected);
    expect(commands(calls)).toEqual(["QueryCommand", "GetItemCommand"]);
    const queries = calls.filter((call) => call.command === "QueryCommand");
    expect(queries.every((call) => call.indexName === "by_post_date" && call.scanForward === false)).toBe(true);
  });
});

function whereOf(filter: string): { where?: NonNullable<ReturnType<typeof parseFilter>> } {
  const where = parseFilter(filter);
  return where === undefined ? {} : { where };
}
