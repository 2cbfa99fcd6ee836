import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { definition } from "../fixtures/blog/index.ts";
import { serveHandlers } from "../graphql/serve.ts";
import { enableTestUser } from "../graphql/support.ts";
import { inProcess } from "../support/parts.ts";

/**
 * A model's `canAct` reason reaches the caller over HTTP, on REST and GraphQL alike, with the
 * status and code the caller's state gives (401 anonymous, 403 signed in); a record the caller may
 * not read stays a 404 without a reason. On DynamoDB Local, through a real HTTP server.
 */

const ALICE = randomUUID();
const BOB = randomUUID();
const run = randomUUID().slice(0, 8);
const OPEN = `reason-open-${run}`;
const DRAFT = `reason-draft-${run}`;

let server: { url: string; close: () => Promise<void> } | undefined;
let restore: () => void = () => undefined;

function app(): Application {
  const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  const prefix = process.env.TABLE_PREFIX ?? "";
  return new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
}

async function rest(method: string, path: string, user?: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server?.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(user ? { "x-test-user": user } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function gql(query: string, user?: string): Promise<{ message?: string; code?: string }> {
  const response = await fetch(`${server?.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(user ? { "x-test-user": user } : {}) },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
  const error = body.errors?.[0];
  return { message: error?.message, code: error?.extensions?.code };
}

const post = (slug: string, status: string) => ({ slug, title: `Title ${slug}`, content: "c", status, viewCount: 0 });

beforeAll(async () => {
  restore = enableTestUser();
  const blog = app();
  server = await serveHandlers([
    ["/graphql", graphqlHandler(blog, graphqlOptions(blog))],
    ["/posts", restHandler(blog)],
  ]);
  expect((await rest("POST", "/posts", ALICE, post(OPEN, "published"))).status).toBe(200);
  expect((await rest("POST", "/posts", ALICE, post(DRAFT, "draft"))).status).toBe(200);
});

afterAll(async () => {
  await server?.close();
  restore();
});

describe("a policy's reason, over REST", () => {
  it("tells an anonymous caller to sign in (401) and another user who may act (403)", async () => {
    expect(await rest("POST", "/posts", undefined, post(`anon-${run}`, "published"))).toEqual({ status: 401, body: { code: 401, message: "sign in first" } });
    expect(await rest("DELETE", `/posts/${OPEN}`)).toEqual({ status: 401, body: { code: 401, message: "sign in first" } });
    expect(await rest("DELETE", `/posts/${OPEN}`, BOB)).toEqual({ status: 403, body: { code: 403, message: "only the owner may do this" } });
    expect(await rest("PATCH", `/posts/${OPEN}`, BOB, { title: "Taken" })).toEqual({ status: 403, body: { code: 403, message: "only the owner may do this" } });
  });

  it("gives no reason for a record the caller may not read: the 404 of a missing one", async () => {
    const missing = await rest("DELETE", `/posts/nothing-${run}`, BOB);
    expect(missing.status).toBe(404);
    for (const user of [undefined, BOB]) {
      expect(await rest("DELETE", `/posts/${DRAFT}`, user)).toEqual(missing);
      expect(await rest("PATCH", `/posts/${DRAFT}`, user, { title: "Taken" })).toEqual(missing);
    }
    expect((await rest("GET", `/posts/${DRAFT}`, ALICE)).status).toBe(200);
  });
});

describe("a policy's reason, over GraphQL", () => {
  it("is errors[].message, with UNAUTHENTICATED for an anonymous caller and PERMISSION_DENIED otherwise", async () => {
    const create = `mutation { createPost(Post: {slug: "anon-gql-${run}", title: "T", content: "c", status: "published"}) { slug } }`;
    expect(await gql(create)).toEqual({ message: "sign in first", code: "UNAUTHENTICATED" });
    expect(await gql(`mutation { deletePost(uuid: "${OPEN}") { success } }`, BOB)).toEqual({
      message: "only the owner may do this",
      code: "PERMISSION_DENIED",
    });
  });

  it("answers a hidden record as a missing one, without the reason", async () => {
    const missing = await gql(`mutation { deletePost(uuid: "nothing-${run}") { success } }`, BOB);
    expect(missing.code).toBe("NOT_FOUND");
    expect(await gql(`mutation { deletePost(uuid: "${DRAFT}") { success } }`, BOB)).toEqual(missing);
    expect(await gql(`mutation { deletePost(uuid: "${DRAFT}") { success } }`)).toEqual(missing);
  });
});
