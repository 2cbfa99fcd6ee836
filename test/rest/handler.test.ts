import { describe, expect, it } from "vitest";
import { ThrottledError } from "../../lib/core/errors.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";
import { ALICE, BOB, blog, post } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { asServerlessOffline } from "../support/offline-env.ts";

const app = blog();
const handler = restHandler(app);
const as = (user: string) => ({ "x-test-user": user });

asServerlessOffline();

describe("REST handler in process", () => {
  it("serves CRUD with ETags and the real key in the path", async () => {
    const created = await call(handler, httpEvent("POST", "/posts", { body: post("hello world"), headers: as(ALICE) }));
    expect(created.statusCode).toBe(400); // slugs have no spaces: validation says where
    expect(created.body).toMatchObject({ code: 400, errors: [{ path: "/slug" }] });

    const ok = await call(handler, httpEvent("POST", "/posts", { body: post("hello"), headers: as(ALICE) }));
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).toMatch(/^"1-[\w-]{16}"$/);
    const got = await call(handler, httpEvent("GET", "/posts/hello", { routeKey: "GET /posts/{slug}" }));
    expect(got.body).toMatchObject({ slug: "hello", author: ALICE });
    const patched = await call(
      handler,
      httpEvent("PATCH", "/posts/hello", { body: { slug: "hello", title: "New" }, headers: { ...as(ALICE), "if-match": '"1"' } }),
    );
    expect(patched.statusCode).toBe(200);
    expect(patched.headers.etag).toMatch(/^"2-[\w-]{16}"$/);
    const stale = await call(handler, httpEvent("PUT", "/posts/hello", { body: post("hello"), headers: { ...as(ALICE), "if-match": '"1"' } }));
    expect(stale.statusCode).toBe(412);
    const notModified = await call(handler, httpEvent("GET", "/posts/hello", { headers: { "if-none-match": patched.headers.etag ?? "" } }));
    expect(notModified.statusCode).toBe(304);
    // A bare version is not this view's tag: the body comes back.
    expect((await call(handler, httpEvent("GET", "/posts/hello", { headers: { "if-none-match": '"2"' } }))).statusCode).toBe(200);
    const deleted = await call(handler, httpEvent("DELETE", "/posts/hello", { headers: as(ALICE) }));
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await call(handler, httpEvent("GET", "/posts/hello"))).statusCode).toBe(404);
  });

  it("decodes path segments exactly once", async () => {
    await call(handler, httpEvent("POST", "/tags", { body: { slug: "c%2B%2B", name: "C++", description: "", color: "#000000" }, headers: as(ALICE) }));
    const got = await call(handler, httpEvent("GET", "/tags/c%252B%252B"));
    expect(got.statusCode).toBe(200);
    expect(got.body).toMatchObject({ slug: "c%2B%2B", name: "C++" });
  });

  it("answers 404 for unknown paths and 405 with Allow for a known path", async () => {
    const missing = await call(handler, httpEvent("GET", "/nothing/here"));
    expect(missing).toMatchObject({ statusCode: 404, body: { code: 404 } });
    const wrong = await call(handler, httpEvent("POST", "/posts/hello"));
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow?.split(", ").sort()).toEqual(["DELETE", "GET", "PATCH", "PUT"]);
  });

  it("answers 405 naming GET and POST for another method on /graphql, and GET on GraphiQL's paths", async () => {
    const put = await call(handler, httpEvent("PUT", "/graphql", { body: { query: "{ __typename }" } }));
    expect(put).toMatchObject({ statusCode: 405, body: { code: 405 } });
    expect(put.headers.allow?.split(", ").sort()).toEqual(["GET", "POST"]);
    const asset = await call(handler, httpEvent("DELETE", "/graphiql/graphiql.0123abcd.js"));
    expect(asset.statusCode).toBe(405);
    expect(asset.headers.allow).toBe("GET");
    expect((await call(handler, httpEvent("GET", "/graphql/extra"))).statusCode).toBe(404);
  });

  it("refuses other media types (415), oversized bodies (413) and malformed JSON (400)", async () => {
    const text = await call(handler, httpEvent("POST", "/posts", { rawBody: "hi", headers: { ...as(ALICE), "content-type": "text/plain" } }));
    expect(text.statusCode).toBe(415);
    const big = await call(handler, httpEvent("POST", "/posts", { body: { ...post("big"), content: "x".repeat(1024 * 1024) }, headers: as(ALICE) }));
    expect(big.statusCode).toBe(413);
    const malformed = await call(handler, httpEvent("POST", "/posts", { rawBody: "{nope", headers: { ...as(ALICE), "content-type": "application/json" } }));
    expect(malformed).toMatchObject({ statusCode: 400, body: { code: 400, message: "Malformed JSON body" } });
  });

  it("serves composite keys, queries, operations and services", async () => {
    await call(handler, httpEvent("POST", "/posts", { body: post("p1"), headers: as(BOB) }));
    const tagged = await call(handler, httpEvent("POST", "/posttags", { body: { post: "p1", tag: "ts" }, headers: as(BOB) }));
    expect(tagged.statusCode).toBe(200);
    expect((await call(handler, httpEvent("GET", "/posttags/p1/ts"))).body).toMatchObject({ post: "p1", tag: "ts" });
    const query = await call(handler, httpEvent("PUT", "/posts", { body: { q: "slug LIKE 'p%'" } }));
    expect(query.body).toMatchObject({ results: [{ slug: "p1" }], continuationToken: null });
    const publish = await call(handler, httpEvent("PUT", "/posts/p1/publish", { body: { destination: "twitter" }, headers: as(BOB) }));
    expect(publish).toMatchObject({ statusCode: 200, body: "Post 'p1' shared on twitter" });
    expect((await call(handler, httpEvent("GET", "/version"))).body).toBe(app.version);
    expect((await call(handler, httpEvent("PUT", "/testbean/testoperation", { body: { counter: 4095 } }))).body).toBe("fff");
    expect((await call(handler, httpEvent("PUT", "/publisher/publish", { body: { message: "m" }, headers: as(BOB) }))).body).toBe("Published: m");
  });

  it("never leaks internals: an unexpected error is a 500 with a request id", async () => {
    const broken = restHandler(
      blog(() => {
        throw new Error("secret database detail");
      }),
    );
    const answer = await call(broken, httpEvent("GET", "/posts/x"));
    expect(answer.statusCode).toBe(500);
    expect(answer.body).toEqual({ code: 500, message: "Internal error", requestId: expect.any(String) });
    expect(JSON.stringify(answer.body)).not.toContain("secret");
  });

  it("turns a throttled database into 429 with Retry-After", async () => {
    const throttled = restHandler(
      blog((model, table) => {
        const store = new MemoryRepository(table);
        // Fault injection: DynamoDB still throttling after the SDK's own retries.
        store.get = () => Promise.reject(new ThrottledError(2));
        void model;
        return store;
      }),
    );
    const answer = await call(throttled, httpEvent("GET", "/posts/x"));
    expect(answer.statusCode).toBe(429);
    expect(answer.headers["retry-after"]).toBe("2");
    expect(answer.body).toMatchObject({ code: 429 });
  });

  it("ignores the test-user header unless offline with the explicit flag", async () => {
    delete process.env.ALLOW_TEST_USER;
    try {
      const anonymous = await call(handler, httpEvent("POST", "/posts", { body: post("nope"), headers: as(ALICE) }));
      expect(anonymous.statusCode).toBe(401);
    } finally {
      process.env.ALLOW_TEST_USER = "true";
    }
  });
});
