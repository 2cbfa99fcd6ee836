import { randomUUID } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { DEFAULT_READ_BUDGET } from "../../lib/core/list.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { Model, type Action, type Decision, type ListLimits } from "../../lib/core/model.ts";
import { Type } from "../../lib/core/schema.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinitions, tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import "../../lib/store/select.ts";
import { ALICE, as } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

/**
 * The read budget per list request: a filter that matches little or nothing costs at
 * most the budget per request, answered with a short or empty page and a continuation token; the
 * tokens, followed, give every match exactly once. On the old code a request read on until its
 * page was full or the table ended: the first request below read all 150 rows (and 2,001 in
 * memory) and answered no token.
 */
class Reading extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({ id: Type.String(), n: Type.Integer(), tag: Type.String() });
  static override readonly limits: ListLimits = { default: 10, max: 100, maxRead: 40 };
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

/** The same model with the default budget. */
class Plain extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({ id: Type.String(), n: Type.Integer(), tag: Type.String() });
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `r${String(i).padStart(5, "0")}`, n: i, tag: i % 7 === 3 ? "x" : "y" }));

/** Every page of `q` from the first, with what each request scanned. */
async function follow(
  app: Application,
  info: ModelInfo,
  q: string,
  scanned: () => number,
): Promise<{ ids: string[]; pages: { size: number; scanned: number; token: boolean }[] }> {
  const ids: string[] = [];
  const pages: { size: number; scanned: number; token: boolean }[] = [];
  let offset: string | null = null;
  do {
    const before = scanned();
    const page = await app.domain.query(as(), info, { q, ...(offset ? { offset } : {}) });
    ids.push(...page.results.map((r) => String(r.id)));
    offset = page.continuationToken;
    pages.push({ size: page.results.length, scanned: scanned() - before, token: offset !== null });
  } while (offset !== null && pages.length < 1000);
  return { ids, pages };
}

describe("the read budget on DynamoDB Local", () => {
  const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  let scannedTotal = 0;
  // Counts what DynamoDB evaluated (ScannedCount) across every Scan and Query the store sends.
  documents.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as { ScannedCount?: number };
      scannedTotal += output.ScannedCount ?? 0;
      return result;
    },
    { step: "initialize", name: "countScanned" },
  );
  afterAll(() => documents.destroy());

  async function seeded(count: number): Promise<{ app: Application; info: ModelInfo }> {
    const prefix = `budget-${randomUUID().slice(0, 8)}-`;
    const app = new Application({ name: "budget", version: "0", models: [Reading], serviceTypes: [], services: {} }, inProcess).useStore(
      (model, table) => new DynamoRepository(documents, tableName(prefix, model), table),
    );
    const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION });
    await ensureTables(admin, tableDefinitions(app, prefix));
    admin.destroy();
    const info = app.model("Reading") as ModelInfo;
    const all = rows(count);
    for (let i = 0; i < all.length; i += 25) await Promise.all(all.slice(i, i + 25).map((row) => app.domain.create(as(), info, row)));
    return { app, info };
  }

  it("answers an unmatched filter with empty pages and tokens, each request reading at most the model's budget", async () => {
    const { app, info } = await seeded(150);
    const { ids, pages } = await follow(app, info, "n < 0", () => scannedTotal);
    expect(ids).toEqual([]);
    expect(pages[0]).toMatchObject({ size: 0, token: true });
    for (const page of pages) expect(page.scanned).toBeLessThanOrEqual(40);
    expect(pages.reduce((sum, page) => sum + page.scanned, 0)).toBe(150);
    expect(pages.length).toBeGreaterThanOrEqual(4);
  });

  it("following the tokens of a sparse filter yields exactly every match, no duplicates, no gaps", async () => {
    const { app, info } = await seeded(150);
    const { ids, pages } = await follow(app, info, "tag = 'x'", () => scannedTotal);
    const expected = rows(150)
      .filter((row) => row.tag === "x")
      .map((row) => row.id);
    expect([...ids].sort()).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    for (const page of pages) expect(page.scanned).toBeLessThanOrEqual(40);
    // Short pages happen only because the budget ended: a page under the limit carries a token
    // unless it is the last.
    expect(pages.slice(0, -1).every((page) => page.token)).toBe(true);
    expect(pages.some((page) => page.size < 10 && page.token)).toBe(true);
    // A dense listing fills its pages as before.
    const dense = await follow(app, info, "n >= 0", () => scannedTotal);
    expect([...dense.ids].sort()).toEqual(rows(150).map((row) => row.id));
    expect(dense.pages.slice(0, -1).every((page) => page.size === 10)).toBe(true);
  });
});

describe("the default read budget", () => {
  async function plain(count: number): Promise<{ app: Application; info: ModelInfo }> {
    const app = new Application({ name: "plain", version: "0", models: [Plain], serviceTypes: [], services: {} }, inProcess).useStore(memoryStore);
    const info = app.model("Plain") as ModelInfo;
    for (const row of rows(count)) await app.domain.create(as(), info, row);
    return { app, info };
  }

  it(`is ${DEFAULT_READ_BUDGET} records: one more ends the first page early with a token`, async () => {
    expect(DEFAULT_READ_BUDGET).toBe(1000);
    const over = await plain(DEFAULT_READ_BUDGET + 1);
    const first = await over.app.domain.query(as(), over.info, { q: "n < 0" });
    expect(first.results).toEqual([]);
    expect(first.continuationToken).toEqual(expect.any(String));
    // An empty page with a token says how far it went: the client keeps following it.
    expect(first.scanned).toBe(DEFAULT_READ_BUDGET);
    const second = await over.app.domain.query(as(), over.info, { q: "n < 0", offset: first.continuationToken });
    expect(second).toEqual({ results: [], continuationToken: null, scanned: 1 });
    // The last record, alone past the budget, is found on the second page.
    const last = await over.app.domain.query(as(), over.info, { q: `n = ${DEFAULT_READ_BUDGET}` });
    expect(last.results).toEqual([]);
    const resumed = await over.app.domain.query(as(), over.info, { q: `n = ${DEFAULT_READ_BUDGET}`, offset: last.continuationToken });
    expect(resumed.results.map((r) => r.n)).toEqual([DEFAULT_READ_BUDGET]);
    const exact = await plain(DEFAULT_READ_BUDGET);
    expect(await exact.app.domain.query(as(), exact.info, { q: "n < 0" })).toEqual({ results: [], continuationToken: null, scanned: DEFAULT_READ_BUDGET });
  });
});

/** A model whose unkeyed filters are refused for `keyedFilters` (its name is its subclass's). */
function keyedModel(keyedFilters: ListLimits["keyedFilters"]) {
  return class extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
    static override readonly schema = Type.Object({ id: Type.String(), n: Type.Integer(), tag: Type.String() });
    static override readonly indexes = [{ name: "by_tag", hash: "tag" }];
    static override readonly limits: ListLimits = { default: 10, max: 100, keyedFilters };
    override canAct(_ctx: unknown, _action: Action): Decision {
      return true;
    }
  };
}

/** Refuses anonymous filters its keys do not serve. */
class Guarded extends keyedModel("anonymous") {}

/** The same, refusing everyone. */
class Strict extends keyedModel("everyone") {}

describe("a model that refuses filters its keys do not serve (keyedFilters)", () => {
  const app = new Application({ name: "guarded", version: "0", models: [Guarded, Strict], serviceTypes: [], services: {} }, inProcess).useStore(memoryStore);
  const guarded = app.model("Guarded") as ModelInfo;
  const strict = app.model("Strict") as ModelInfo;

  it("refuses an anonymous Scan filter with 400 naming the key and the indexes, and serves keyed ones", async () => {
    await app.domain.create(as(), guarded, { id: "g1", n: 1, tag: "x" });
    const refused = app.domain.query(as(), guarded, { q: "n < 0" });
    await expect(refused).rejects.toMatchObject({
      status: 400,
      code: "BAD_QUERY",
      message: "this filter is not served by a key of Guarded: filter with equality on id (the key), tag (index by_tag)",
    });
    expect((await app.domain.query(as(), guarded, { q: "tag = 'x'" })).results.map((r) => r.id)).toEqual(["g1"]);
    expect((await app.domain.query(as(), guarded, { q: "id = 'g1' AND n = 1" })).results).toHaveLength(1);
    expect((await app.domain.query(as(), guarded, { q: "" })).results).toHaveLength(1);
    // A signed-in caller may still filter by anything.
    expect((await app.domain.query(as(ALICE), guarded, { q: "n = 1" })).results).toHaveLength(1);
  });

  it("refuses everyone when the model says so", async () => {
    await expect(app.domain.query(as(ALICE), strict, { q: "n = 1" })).rejects.toMatchObject({ status: 400, code: "BAD_QUERY" });
    expect((await app.domain.query(as(ALICE), strict, { q: "tag = 'x'" })).results).toEqual([]);
  });
});
