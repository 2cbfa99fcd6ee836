import { randomUUID } from "node:crypto";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { MessageType } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { ApiGatewayTransport } from "../../lib/realtime/transport.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { DYNAMODB_BUDGET } from "../../lib/store/aws-budgets.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { injectFaults, sdkError } from "../support/faults.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { ENDPOINT, memoryRepositories, realtimeFor } from "../realtime/support.ts";
import { createModelTables } from "../support/model-tables.ts";

const prefix = `faults-${randomUUID().slice(0, 8)}-`;
let documents: DynamoDBDocumentClient;
let faults: ReturnType<typeof injectFaults>;
let app: Application;
let handler: ReturnType<typeof restHandler>;
const alice = { "x-test-user": ALICE };

beforeAll(async () => {
  process.env.IS_OFFLINE = "true";
  process.env.ALLOW_TEST_USER = "true";
  documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  faults = injectFaults(documents);
  app = blog((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
  await createModelTables(app, prefix);
  handler = restHandler(app);
});

afterAll(() => {
  delete process.env.IS_OFFLINE;
  delete process.env.ALLOW_TEST_USER;
  documents.destroy();
});

const stored = (slug: string) => call(handler, httpEvent("GET", `/posts/${slug}`, { routeKey: "GET /posts/{slug}" }));

describe("DynamoDB faults injected in the SDK's middleware stack", () => {
  it("retries a throttled write with the SDK's backoff and succeeds when the throttling passes", async () => {
    faults.reset();
    faults.add({ command: "PutItemCommand", times: 2, error: () => sdkError("ProvisionedThroughputExceededException", 400) });
    const slug = `t-${randomUUID().slice(0, 8)}`;
    const created = await call(handler, httpEvent("POST", "/posts", { body: post(slug), headers: alice }));
    expect(created.statusCode).toBe(200);
    expect(faults.attempts.PutItemCommand).toBe(3);
    expect((await stored(slug)).body).toMatchObject({ slug, title: `Title of ${slug}` });
  });

  it("answers 429 with Retry-After once the SDK's attempts are spent, and writes nothing", async () => {
    faults.reset();
    faults.add({ command: "PutItemCommand", times: Number.POSITIVE_INFINITY, error: () => sdkError("ThrottlingException", 400) });
    const slug = `t-${randomUUID().slice(0, 8)}`;
    const refused = await call(handler, httpEvent("POST", "/posts", { body: post(slug), headers: alice }));
    faults.reset();
    // 429 when the SDK gives up first; 503 when its backoff outlasts the Lambda's remaining time
    // (the test context gives 10 s) and middy ends the request: both tell the client to retry.
    expect([429, 503]).toContain(refused.statusCode);
    expect(refused).toMatchObject({
      headers: { "retry-after": expect.stringMatching(/^[12]$/) },
      body: { code: refused.statusCode, message: expect.any(String) },
    });
    expect((await stored(slug)).statusCode).toBe(404);
  }, 60_000);

  it("answers 503 with Retry-After when DynamoDB keeps timing out, with no half-written record", async () => {
    faults.reset();
    const slug = `t-${randomUUID().slice(0, 8)}`;
    await call(handler, httpEvent("POST", "/posts", { body: post(slug), headers: alice }));
    faults.add({ command: "UpdateItemCommand", times: Number.POSITIVE_INFINITY, error: () => sdkError("TimeoutError", 0, "socket hang up") });
    const refused = await call(
      handler,
      httpEvent("PATCH", `/posts/${slug}`, { body: { title: "changed", content: "changed too" }, headers: alice, routeKey: "PATCH /posts/{slug}" }),
    );
    const tried = faults.attempts.UpdateItemCommand;
    faults.reset();
    // A stalled call's attempts (fewer than a throttled one's).
    expect(tried).toBe(DYNAMODB_BUDGET.stalledAttempts);
    expect(refused).toMatchObject({ statusCode: 503, headers: { "retry-after": "2" }, body: { code: 503, message: expect.any(String) } });
    const after = await stored(slug);
    expect(after.body).toMatchObject({ title: `Title of ${slug}`, content: "Some content" });
    expect(after.headers.etag).toMatch(/^"1-/);
  }, 60_000);

  it("survives a conditional-check failure between the read and the write of a PUT (another writer lands first)", async () => {
    faults.reset();
    const slug = `c-${randomUUID().slice(0, 8)}`;
    await call(handler, httpEvent("POST", "/posts", { body: post(slug), headers: alice }));
    // In the middle of the PUT (after its read, before its conditional write), a real concurrent
    // patch lands through a second client: the write's condition fails for real.
    const other = blog((name, table) => new DynamoRepository(createDocumentClient(process.env.DYNAMODB_ENDPOINT), tableName(prefix, name), table));
    let interleaved = false;
    // Commands the domain sent (this step runs once per command, outside the SDK's own retries,
    // which a loaded DynamoDB Local may add).
    let puts = 0;
    faults.reset();
    documents.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "PutItemCommand") puts++;
        if (context.commandName === "PutItemCommand" && !interleaved) {
          interleaved = true;
          await call(
            restHandler(other),
            httpEvent("PATCH", `/posts/${slug}`, { body: { content: "by the other writer" }, headers: alice, routeKey: "PATCH /posts/{slug}" }),
          );
        }
        return next(args);
      },
      { step: "initialize", name: `interleave-${slug}` },
    );
    try {
      // With If-Match, the write is refused with 412 and the other writer's record stays whole.
      const pinned = await call(
        handler,
        httpEvent("PUT", `/posts/${slug}`, {
          body: post(slug, "published", { title: "mine" }),
          headers: { ...alice, "if-match": '"1"' },
          routeKey: "PUT /posts/{slug}",
        }),
      );
      expect(pinned.statusCode).toBe(412);
      const between = await stored(slug);
      expect(between.body).toMatchObject({ title: `Title of ${slug}`, content: "by the other writer" });
      expect(between.headers.etag).toMatch(/^"2-/);
      // Without If-Match, the domain re-reads and applies the PUT on the new version.
      interleaved = false;
      faults.reset();
      puts = 0;
      const unpinned = await call(
        handler,
        httpEvent("PUT", `/posts/${slug}`, { body: post(slug, "published", { title: "mine" }), headers: alice, routeKey: "PUT /posts/{slug}" }),
      );
      expect(unpinned.statusCode).toBe(200);
      // The first write lost to the other writer's, the domain re-read and wrote once more.
      expect(puts).toBe(2);
      const final = await stored(slug);
      expect(final.body).toMatchObject({ title: "mine", content: "Some content" });
      expect(final.headers.etag).toMatch(/^"4-/);
    } finally {
      documents.middlewareStack.remove(`interleave-${slug}`);
    }
  });
});

describe("WebSocket management API faults injected in its SDK client", () => {
  it("removes a gone (410) connection, retries a throttled one, and still delivers to the rest", async () => {
    const transport = new ApiGatewayTransport();
    // The transport's own client for this endpoint, with the faults below its (single) attempt.
    const client = transport["client"](ENDPOINT);
    let throttled = 0;
    let armed = false;
    const posted: string[] = [];
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const input = (args as { input?: { ConnectionId?: string } }).input ?? {};
        const id = input.ConnectionId ?? "";
        if (armed && context.commandName === "PostToConnectionCommand") {
          if (id === "gone") throw sdkError("GoneException", 410);
          if (id === "busy" && throttled++ < 2) throw sdkError("LimitExceededException", 429);
          posted.push(id);
        }
        return { output: { $metadata: { httpStatusCode: 200 } }, response: {} };
      },
      { step: "initialize", name: "fakeManagementApi" },
    );
    const memoryApp = blog();
    const realtime = realtimeFor(
      memoryApp,
      transport,
      memoryRepositories(),
      { retryBaseMs: 1 },
      connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } }),
    );
    for (const connectionId of ["ok", "gone", "busy"]) {
      await realtime.protocol.connect({
        connectionId,
        endpoint: ENDPOINT,
        connectedAt: Date.now(),
        headers: { "sec-websocket-protocol": "graphql-transport-ws" },
        cookies: [],
      });
      await realtime.protocol.message({
        connectionId,
        endpoint: ENDPOINT,
        body: JSON.stringify({ type: MessageType.ConnectionInit }),
        receivedAt: Date.now(),
        requestId: connectionId,
      });
      await realtime.protocol.message({
        connectionId,
        endpoint: ENDPOINT,
        body: JSON.stringify({ id: "s", type: MessageType.Subscribe, payload: { query: "subscription { Posts { type key } }" } }),
        receivedAt: Date.now(),
        requestId: connectionId,
      });
    }
    armed = true;
    const report = await realtime.fanout.deliver({
      name: "Post.Created",
      model: "Post",
      kind: "Created",
      key: { slug: "x" },
      record: { ...post("x"), author: ALICE, createdAt: "x", updatedAt: "x" },
    });
    expect(report).toMatchObject({ subscriptions: 3, delivered: 2, gone: 1, failed: 0, retries: 2 });
    expect(posted.sort()).toEqual(["busy", "ok"]);
    expect(await realtime.store.getConnection("gone")).toBeUndefined();
    expect(await realtime.store.subscriptionsOf("gone")).toEqual([]);
  });
});
