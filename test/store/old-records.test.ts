import { randomUUID } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { DomainError } from "../../lib/core/errors.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { openApiDocument } from "../../lib/rest/openapi.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { Article, articlesApp } from "../fixtures/records-app/articles.ts";
import { as } from "../support/blog.ts";
import { call, httpEvent, type Answer } from "../support/http-events.ts";
import { createModelTables } from "../support/model-tables.ts";
import { ContractChecker } from "../support/openapi/contract.ts";
import { inProcess } from "../support/parts.ts";

// Records written by v1 of the fixture application (test/fixtures/records-app), put raw through the
// SDK as v1 stored them, then served by v2 over DynamoDB Local.
const prefix = `records-${randomUUID().slice(0, 8)}-`;
const table = tableName(prefix, "Article");
const at = "2026-01-02T03:04:05.000Z";
const V1_ROWS = [
  { slug: "old-text", title: "Old with text", body: "v1 text", createdAt: at, updatedAt: at, __version: 3 },
  { slug: "old-bare", title: "Old without text", createdAt: at, updatedAt: at, __version: 1 },
  // Written by another program (as v3 rows are): no `__version` (version 0).
  { slug: "old-raw", title: "Old, no envelope", body: "raw", createdAt: at, updatedAt: at },
];
// A stored value the current schema refuses (summary has minLength 1), put by its own test.
const INVALID_ROW = { slug: "old-invalid", title: "Old, bad summary", summary: "", createdAt: at, updatedAt: at, __version: 1 };

let app: Application;
let info: ModelInfo;
let checker: ContractChecker;
let rest: ReturnType<typeof restHandler>;
let graphql: ReturnType<typeof graphqlHandler>;

const raw = async (slug: string) => (await documentClient().send(new GetCommand({ TableName: table, Key: { slug }, ConsistentRead: true }))).Item;

function conforms(operationId: string, answer: Answer): void {
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
  expect(checker.check({ operationId, status: answer.statusCode, headers, bodyText: JSON.stringify(answer.body) })).toEqual([]);
}

async function gql(query: string): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const answer = await call(graphql, httpEvent("POST", "/graphql", { body: { query } }));
  return answer.body as { data?: Record<string, unknown>; errors?: unknown[] };
}

async function list(q: string): Promise<string[]> {
  const answer = await call(rest, httpEvent("PUT", "/articles", { routeKey: "PUT /articles", body: { q, limit: 100 } }));
  expect(answer.statusCode).toBe(200);
  conforms("Article.query", answer);
  return (answer.body as { results: { slug: string }[] }).results.map((r) => r.slug).sort();
}

beforeAll(async () => {
  app = articlesApp(Article, inProcess).useStore(dynamoStore(prefix));
  info = app.model("Article") as ModelInfo;
  await createModelTables(app, prefix);
  for (const item of V1_ROWS) await documentClient().send(new PutCommand({ TableName: table, Item: item }));
  checker = new ContractChecker(openApiDocument(app, deriveRoutes(app)));
  rest = restHandler(app);
  graphql = graphqlHandler(app, graphqlOptions(app));
  // Records written by v2 itself, for the filters.
  await app.domain.create(as(), info, { slug: "new-published", title: "New", content: "c", summary: "S", status: "published" });
  await app.domain.create(as(), info, { slug: "new-default", title: "New, defaults", content: "c" });
}, 120_000);

describe("records written by the previous version, served by the current one", () => {
  it("the domain serves an old record upgraded: the step's rename, then the defaults", async () => {
    const { data, version } = await app.domain.get(as(), info, { slug: "old-text" });
    expect(data).toEqual({
      slug: "old-text",
      title: "Old with text",
      content: "v1 text",
      summary: "(no summary)",
      status: "draft",
      tags: [],
      createdAt: at,
      updatedAt: at,
    });
    expect(version).toBe(3);
    expect((await app.domain.get(as(), info, { slug: "old-bare" })).data).toMatchObject({ content: "", summary: "(no summary)" });
    expect((await app.domain.get(as(), info, { slug: "old-raw" })).version).toBe(0);
    // Reading wrote nothing.
    expect(await raw("old-text")).toEqual(V1_ROWS[0]);
  });

  it("REST get and list answer what the OpenAPI document promises, for old rows as for new ones", async () => {
    for (const slug of ["old-text", "old-bare", "old-raw", "new-default"]) {
      const answer = await call(rest, httpEvent("GET", `/articles/${slug}`, { routeKey: "GET /articles/{slug}" }));
      expect(answer.statusCode).toBe(200);
      conforms("Article.get", answer);
      expect(answer.body).toMatchObject({ summary: expect.any(String), status: expect.stringMatching(/^(draft|published)$/), content: expect.any(String) });
    }
    expect(await list("")).toEqual(["new-default", "new-published", "old-bare", "old-raw", "old-text"]);
  });

  it("the document promises the defaulted fields in every answer, and lets a create leave them out", () => {
    const output = info.outputSchema.required ?? [];
    expect(output).toEqual(expect.arrayContaining(["summary", "status", "tags", "content"]));
    expect(info.inputSchema.required).toEqual(["slug", "title", "content"]);
  });

  it("GraphQL serves the defaults through non-null fields, one record and a list", async () => {
    const one = await gql(`{ Article(slug: "old-bare") { slug content summary status tags } }`);
    expect(one).toEqual({ data: { Article: { slug: "old-bare", content: "", summary: "(no summary)", status: "draft", tags: [] } } });
    const many = await gql(`{ Articles(query: "slug LIKE 'old-%'") { results { slug summary status content } } }`);
    expect(many.errors).toBeUndefined();
    const results = (many.data?.Articles as { results: Record<string, unknown>[] }).results;
    expect(results).toHaveLength(3);
    // What the output schema requires (the GraphQL types' non-null fields derive from it) is never null.
    for (const record of results) for (const field of ["summary", "status", "content"]) expect(record[field]).toEqual(expect.any(String));
  });

  it("a filter on a defaulted field matches old rows as their served value says, in DynamoDB's own filter", async () => {
    expect(await list("status = 'draft'")).toEqual(["new-default", "old-bare", "old-raw", "old-text"]);
    expect(await list("status = 'published'")).toEqual(["new-published"]);
    expect(await list("status != 'draft'")).toEqual(["new-published"]);
    expect(await list("summary = '(no summary)'")).toEqual(["new-default", "old-bare", "old-raw", "old-text"]);
    expect(await list("summary IS NULL")).toEqual([]);
    expect(await list("status IN ['draft'] AND title LIKE 'Old%'")).toEqual(["old-bare", "old-raw", "old-text"]);
  });

  it("a filter on a field an upgrade step makes matches old rows on the upgraded record", async () => {
    expect(await list("content = 'v1 text'")).toEqual(["old-text"]);
    expect(await list("content = ''")).toEqual(["old-bare"]);
    expect(await list("NOT content = ''")).toEqual(["new-default", "new-published", "old-raw", "old-text"]);
  });

  it("a PATCH of an old record stores the whole record, upgraded, valid and current-shaped, on the version it read", async () => {
    const answer = await call(rest, httpEvent("PATCH", "/articles/old-bare", { routeKey: "PATCH /articles/{slug}", body: { title: "Patched" } }));
    expect(answer.statusCode).toBe(200);
    conforms("Article.patch", answer);
    const stored = await raw("old-bare");
    expect(stored).toMatchObject({
      slug: "old-bare",
      title: "Patched",
      content: "",
      summary: "(no summary)",
      status: "draft",
      tags: [],
      __modelVersion: 2,
      __version: 2,
    });
    expect(stored).not.toHaveProperty("body");
    expect(info.upgrade.needsUpgrade(stored as Record<string, unknown>)).toBe(false);
  });

  it("a PATCH whose whole record would be invalid is refused with 400 naming the stored field, and writes nothing", async () => {
    await documentClient().send(new PutCommand({ TableName: table, Item: INVALID_ROW }));
    const answer = await call(rest, httpEvent("PATCH", "/articles/old-invalid", { routeKey: "PATCH /articles/{slug}", body: { title: "Patched" } }));
    expect(answer.statusCode).toBe(400);
    conforms("Article.patch", answer);
    expect(answer.body).toMatchObject({ code: 400, errors: [{ path: "/summary", message: expect.any(String) }] });
    expect(await raw("old-invalid")).toEqual(INVALID_ROW);
    // Giving the field a valid value in the same patch mends the record.
    const mended = await app.domain.patch(as(), info, { slug: "old-invalid" }, { summary: "Now valid" });
    expect(mended.data).toMatchObject({ summary: "Now valid", content: "" });
    expect(await raw("old-invalid")).toMatchObject({ summary: "Now valid", __modelVersion: 2 });
  });

  it("a PATCH of an old record without If-Match does not lose a write that lands between its read and its write", async () => {
    // The other writer moves the version on: the upgrade-and-replace must read again, never overwrite.
    const repository = app.repository(info);
    const stored = await repository.get({ slug: "old-raw" });
    await documentClient().send(new PutCommand({ TableName: table, Item: { ...V1_ROWS[2], title: "Changed meanwhile", __version: 7 } }));
    const failure = await repository.replace({ slug: "old-raw" }, { ...stored, title: "stale" }, { expectedVersion: 0 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).status).toBe(412);
    const patched = await app.domain.patch(as(), info, { slug: "old-raw" }, { summary: "Both" });
    expect(patched.data).toMatchObject({ title: "Changed meanwhile", summary: "Both", content: "raw" });
    expect(await raw("old-raw")).toMatchObject({ title: "Changed meanwhile", summary: "Both", __version: 8, __modelVersion: 2 });
  });

  it("a PUT of an old record stores it current-shaped, defaults filled in", async () => {
    const answer = await call(
      rest,
      httpEvent("PUT", "/articles/old-text", { routeKey: "PUT /articles/{slug}", body: { title: "Replaced", content: "new text" } }),
    );
    expect(answer.statusCode).toBe(200);
    conforms("Article.update", answer);
    expect(await raw("old-text")).toMatchObject({ title: "Replaced", content: "new text", summary: "(no summary)", status: "draft", __modelVersion: 2 });
    expect(await raw("old-text")).not.toHaveProperty("body");
  });

  it("a stream image (a subscription's payload) is served upgraded too", async () => {
    const view = await app.domain.view(as(), info, { ...V1_ROWS[0] });
    expect(view).toMatchObject({ content: "v1 text", summary: "(no summary)", status: "draft" });
    expect(view).not.toHaveProperty("body");
  });
});
