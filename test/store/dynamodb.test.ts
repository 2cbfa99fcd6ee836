import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { describeModel } from "../../lib/core/model-info.ts";
import { Model } from "../../lib/core/model.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRecords } from "../../lib/store/dynamodb-records.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { parseFilter } from "../../lib/query/index.ts";
import { COMPOSITE, repositoryContract, SINGLE } from "./contract.ts";

const endpoint = inject("dynamodbEndpoint");
const documents = createDocumentClient(endpoint);
const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
afterAll(() => {
  documents.destroy();
  admin.destroy();
});

/** Contract tables are made from model-like shapes through the same definition code as the app's. */
function shapeModel(name: string, keys: string[], numeric: string[]): typeof Model {
  const properties = Object.fromEntries([...keys, "group", "rank", "name", "owner"].map((f) => [f, { type: numeric.includes(f) ? "number" : "string" }]));
  return class extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = keys;
    static override readonly schema = { type: "object" as const, properties };
    static {
      Object.defineProperty(this, "name", { value: name });
    }
  };
}

const prefix = `contract-${process.pid}-`;
const tables = new Map<string, { name: string }>();
let ready: Promise<void> | undefined;

async function createTables(): Promise<void> {
  const single = describeModel(shapeModel("Single", ["id"], ["rank"]));
  const composite = describeModel(shapeModel("Composite", ["owner", "name"], []));
  const defs = [{ ...tableDefinition({ ...single, table: SINGLE }, prefix) }, { ...tableDefinition({ ...composite, table: COMPOSITE }, prefix) }];
  await ensureTables(admin, defs);
  tables.set("single", { name: `${prefix}Single` });
  tables.set("composite", { name: `${prefix}Composite` });
}

repositoryContract(
  "DynamoDB",
  async (table) => {
    ready ??= createTables();
    await ready;
    const name = table === SINGLE ? `${prefix}Single` : `${prefix}Composite`;
    return new DynamoRepository(documents, name, table);
  },
  { pages: true },
);

// The store of the functions that read by key only (lib/store/select-records.ts): the same rows as
// DynamoRepository's, and no listing.
describe("DynamoRecords", () => {
  it("reads, writes and finds by field the rows DynamoRepository does, and refuses to list", async () => {
    ready ??= createTables();
    await ready;
    const records = new DynamoRecords(documents, `${prefix}Single`, SINGLE);
    const full = new DynamoRepository(documents, `${prefix}Single`, SINGLE);
    const id = `records-${Date.now()}`;
    const created = await records.create({ id, group: "g-records", rank: 1 });
    expect(await full.get({ id })).toEqual(created);
    const patched = await records.patch({ id }, { rank: 2 }, [], { expectedVersion: 1 });
    expect(await full.get({ id })).toEqual(patched);
    expect(await records.findByField("group", ["g-records"])).toEqual(await full.findByField("group", ["g-records"]));
    await expect(records.list({ limit: 1 })).rejects.toThrow(/reads by key only: listing needs DynamoRepository/);
    expect(await records.delete({ id })).toEqual(patched);
    expect(await full.get({ id })).toBeUndefined();
  });
});

describe("DynamoDB listEach", () => {
  const commands: string[] = [];
  documents.middlewareStack.add(
    (next, context) => (args) => {
      commands.push((context.commandName ?? "unknown").replace(/Command$/, ""));
      return next(args);
    },
    { step: "initialize", name: "countListEachCommands" },
  );
  const repository = (): DynamoRepository => new DynamoRepository(documents, `${prefix}Single`, SINGLE);
  const scopes = (values: string[]) => values.map((v) => ({ value: v, where: parseFilter(`group = '${v}'`) }));

  beforeAll(async () => {
    ready ??= createTables();
    await ready;
    await repository().clear();
    // 12 groups of 0 to 11 records, distinct ranks within each; group t0 also has two equal ranks.
    await Promise.all(
      Array.from({ length: 12 }, (_, g) => Array.from({ length: g }, (_, i) => repository().create({ id: `l${g}-${i}`, group: `l${g}`, rank: i * 10 }))).flat(),
    );
    await Promise.all([1, 2, 2, 3].map((rank, i) => repository().create({ id: `t0-${i}`, group: "t0", rank })));
  }, 120_000);

  it("reads the scopes of 60 values in two PartiQL IN statements, and each page is what list gives", async () => {
    const values = [...Array.from({ length: 12 }, (_, g) => `l${g}`), ...Array.from({ length: 48 }, (_, i) => `none${i}`)];
    commands.length = 0;
    const pages = await repository().listEach({ field: "group", scopes: scopes(values), limit: 4, orderBy: [{ field: "rank", direction: "DESC" }] });
    expect(commands).toEqual(["ExecuteStatement", "ExecuteStatement"]);
    for (const [g, page] of pages.slice(0, 12).entries()) {
      const ranks = Array.from({ length: g }, (_, i) => i * 10)
        .reverse()
        .slice(0, 4);
      expect(page.items.map((i) => i.rank)).toEqual(ranks);
      expect(page.next !== undefined).toBe(g > 4);
      if (page.next) {
        const following = await repository().list({
          where: parseFilter(`group = 'l${g}'`),
          orderBy: [{ field: "rank", direction: "DESC" }],
          limit: 100,
          after: page.next,
        });
        expect(following.items.map((i) => i.rank)).toEqual(
          Array.from({ length: g }, (_, i) => i * 10)
            .reverse()
            .slice(4),
        );
      }
    }
    expect(pages.slice(12).every((p) => p.items.length === 0 && !p.next)).toBe(true);
  });

  it("asks DynamoDB itself for a page whose order it leaves open (equal sort keys), and only for that one", async () => {
    commands.length = 0;
    const pages = await repository().listEach({ field: "group", scopes: scopes(["t0", "l3"]), limit: 2, orderBy: [{ field: "rank", direction: "ASC" }] });
    expect(commands).toEqual(["ExecuteStatement", "Query"]);
    const alone = await repository().list({ where: parseFilter("group = 't0'"), orderBy: [{ field: "rank", direction: "ASC" }], limit: 2 });
    expect(pages[0]?.items).toEqual(alone.items);
    expect(pages[1]?.items.map((i) => i.rank)).toEqual([0, 10]);
  });

  it("follows NextToken past DynamoDB's 1 MB page, every scope's page still the one list gives", async () => {
    const body = "y".repeat(4_000);
    for (let i = 0; i < 300; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => repository().create({ id: `mb-${i + j}`, group: `mb${(i + j) % 3}`, rank: i + j, body })));
    commands.length = 0;
    const request = { field: "group", scopes: scopes(["mb0", "mb1", "mb2"]), limit: 100, orderBy: [{ field: "rank", direction: "DESC" as const }] };
    const pages = await repository().listEach(request);
    // About 1.2 MB of records: more than one page of one statement, and no Query.
    expect(commands.every((c) => c === "ExecuteStatement")).toBe(true);
    expect(commands.length).toBeGreaterThan(1);
    for (const [i, page] of pages.entries()) {
      expect(page.items.map((item) => item.rank)).toEqual(Array.from({ length: 100 }, (_, n) => 297 + i - 3 * n).filter((r) => r >= 0));
      expect(page.next).toBeUndefined();
    }
  }, 120_000);

  it("lists a value on its own when its records pass the read budget, with the same page", async () => {
    for (let i = 0; i < 1_050; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => repository().create({ id: `big-${i + j}`, group: "big", rank: i + j })));
    commands.length = 0;
    const pages = await repository().listEach({ field: "group", scopes: scopes(["big", "l2"]), limit: 3 });
    expect(commands.filter((c) => c === "Query").length).toBeGreaterThanOrEqual(2);
    expect(pages[0]?.items.map((i) => i.rank)).toEqual([0, 1, 2]);
    expect(pages[0]?.next).toBeDefined();
    expect(pages[1]?.items.map((i) => i.rank)).toEqual([0, 10]);
  }, 120_000);
});
