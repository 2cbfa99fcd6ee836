import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "../../lib/core/log.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { createModelTables } from "../support/model-tables.ts";

afterEach(() => vi.restoreAllMocks());

/**
 * Each request's log line tells what it cost : DynamoDB calls, the capacity DynamoDB
 * reported, items it read and bytes answered. Before, the line had method, path, status and time
 * only: the 7.4 s unmatched filter showed as nothing but its duration.
 */
describe("the request log line (DynamoDB Local)", () => {
  it("carries DynamoDB calls, consumed capacity, items read and bytes answered", async () => {
    const prefix = `cost-${randomUUID().slice(0, 8)}-`;
    const app = blog(dynamoStore(prefix));
    await createModelTables(app, prefix);
    const Post = model(app, "Post");
    for (let i = 0; i < 12; i++) await app.domain.create(as(ALICE), Post, post(`cost-${i}`));
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(log, "info").mockImplementation((message: string, fields?: Record<string, unknown>) => {
      if (message === "request") lines.push(fields ?? {});
      return false;
    });
    const handler = restHandler(app);
    const answer = await call(handler, httpEvent("PUT", "/posts", { body: { q: "title = 'nothing at all'" } }));
    expect(answer.body).toEqual({ results: [], continuationToken: null, scanned: 12 });
    expect(lines).toHaveLength(1);
    const line = lines[0] as Record<string, number>;
    // One Scan of the 12 posts (no key serves the filter); DynamoDB reports what it consumed.
    expect(line.dynamodbCalls).toBe(1);
    expect(line.itemsRead).toBe(12);
    expect(line.consumedCapacity).toBeGreaterThan(0);
    expect(line.bytes).toBe(Buffer.byteLength(JSON.stringify(answer.body)));
    // A read by key: one call, one item; the next request starts from zero.
    const got = await call(handler, httpEvent("GET", "/posts/cost-3", { routeKey: "GET /posts/{slug}" }));
    expect(got.statusCode).toBe(200);
    expect(lines[1]).toMatchObject({ dynamodbCalls: 1, itemsRead: 1 });
  });
});
