import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { accountOperations, type Accounted } from "../../bench/dynamo/operations.ts";

/**
 * What each operation sends to DynamoDB Local through its real face (the same accounting as
 * `npm run bench`): counts only, never times. No Scan where a key or an index can answer, and
 * a list with relations costs a constant number of calls, not one per record (no N+1).
 */
let results: Accounted[] = [];
let restore: () => void;

beforeAll(async () => {
  const previous = { offline: process.env.IS_OFFLINE, allow: process.env.ALLOW_TEST_USER };
  process.env.IS_OFFLINE = "true";
  process.env.ALLOW_TEST_USER = "true";
  restore = () => {
    if (previous.offline === undefined) delete process.env.IS_OFFLINE;
    else process.env.IS_OFFLINE = previous.offline;
    if (previous.allow === undefined) delete process.env.ALLOW_TEST_USER;
    else process.env.ALLOW_TEST_USER = previous.allow;
  };
  results = await accountOperations(inject("dynamodbEndpoint"), `benchcalls-${process.pid}-`);
}, 120_000);

afterAll(() => restore());

function operation(prefix: string): Accounted {
  const found = results.find((r) => r.operation.startsWith(prefix));
  if (!found) throw new Error(`no operation ${prefix}`);
  return found;
}

describe("DynamoDB calls per operation", () => {
  it("get is one GetItem", () => {
    expect(operation("get").status).toBe(200);
    expect(operation("get").counts).toEqual({ GetItem: 1 });
  });

  it("a query by foreign key is one Query on the index, no Scan", () => {
    const query = operation("query by foreign key");
    expect(query.status).toBe(200);
    expect(query.counts).toEqual({ Query: 1 });
    expect(query.calls[0]?.indexName).toBeDefined();
  });

  it("every operation answers its expected status and stays at the minimum its shape allows", () => {
    for (const r of results) {
      expect(r.status, r.operation).toBe(r.expectedStatus);
      expect(r.problem, r.operation).toBeUndefined();
      expect(r.calls.length, `${r.operation}: ${r.minimum.why}`).toBeLessThanOrEqual(r.minimum.calls);
    }
  });

  it("the minimum is derived from the shape: 50 posts + author + tags is 1 page + 1 batch + (join rows + targets)", () => {
    expect(operation("list with relations").minimum.calls).toBe(4);
    expect(operation("list with contains").minimum.calls).toBe(2);
  });

  it("50 posts with their comments (a contains relation): one listing read, then one PartiQL IN for the 50 parents' children", () => {
    const list = operation("list with contains");
    expect(list.status).toBe(200);
    expect(list.counts).toEqual({ Scan: 1, ExecuteStatement: 1 });
    expect(list.calls.length).toBeLessThanOrEqual(3);
  });

  it("50 posts with author and tags: one listing read and one batched read per relation (no N+1)", () => {
    const list = operation("list with relations");
    expect(list.status).toBe(200);
    expect(list.counts).toEqual({ Scan: 1, BatchGetItem: 2, ExecuteStatement: 1 });
    expect(list.counts.GetItem ?? 0).toBe(0);
    expect(list.counts.Query ?? 0).toBe(0);
  });

  it("create is one conditional PutItem", () => {
    expect(operation("create").status).toBe(200);
    expect(operation("create").counts).toEqual({ PutItem: 1 });
  });

  it("patch reads once for the permission check and writes once", () => {
    expect(operation("patch").status).toBe(200);
    expect(operation("patch").counts).toEqual({ GetItem: 1, UpdateItem: 1 });
  });

  it("reports the capacity each call consumed", () => {
    for (const r of results) expect(r.capacity, r.operation).toBeGreaterThan(0);
  });
});
