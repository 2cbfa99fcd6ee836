import { describe, expect, it } from "vitest";
import { restHandler } from "../../lib/rest/handler.ts";
import { readHandler } from "../../lib/rest/read-handler.ts";
import { serverlessFunctions } from "../../lib/rest/functions.ts";
import { dynamoRecordStore } from "../../lib/store/select-records.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { ALICE, BOB, blog, post } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { inProcess } from "../support/parts.ts";
import { asServerlessOffline } from "../support/offline-env.ts";

const app = blog();
const full = restHandler(app);
const read = readHandler(app);
const as = (user: string) => ({ "x-test-user": user });
const get = (path: string, headers: Record<string, string> = {}) =>
  httpEvent("GET", path, { routeKey: path.startsWith("/posts/") ? "GET /posts/{slug}" : "GET /users/{uuid}", headers });

asServerlessOffline();

// functions/rest-read.ts serves record reads with readHandler: every answer must be the full REST
// handler's, byte for byte, for the same request.
describe("the record read's own function", () => {
  it("answers a read exactly as the full REST handler does: record, ETag, 304, 404, the author's draft", async () => {
    await call(full, httpEvent("POST", "/posts", { body: post("public"), headers: as(ALICE) }));
    await call(full, httpEvent("POST", "/posts", { body: post("secret", "draft"), headers: as(ALICE) }));
    const tag = (await call(full, get("/posts/public"))).headers.etag ?? "";
    const requests = [
      get("/posts/public"),
      get("/posts/public", { "if-none-match": tag }),
      get("/posts/public", { "if-none-match": '"1"' }),
      get("/posts/missing"),
      get("/posts/secret"),
      get("/posts/secret", as(BOB)),
      get("/posts/secret", as(ALICE)),
      get("/posts/%E0%A4%A"),
    ];
    const statuses: number[] = [];
    for (const request of requests) {
      const [expected, actual] = [await call(full, request), await call(read, request)];
      expect(actual).toEqual(expected);
      statuses.push(actual.statusCode);
    }
    expect(statuses).toEqual([200, 304, 200, 404, 404, 404, 200, 400]);
  });

  it("answers from DynamoDB as functions/rest-read.ts builds it (a key-read store, no listing) exactly as the full handler", async () => {
    const whole = restHandler(blog(dynamoStore()));
    const slug = `dyn-${Date.now()}`;
    expect((await call(whole, httpEvent("POST", "/posts", { body: post(slug), headers: as(ALICE) }))).statusCode).toBe(200);
    expect((await call(whole, httpEvent("POST", "/posts", { body: post(`${slug}-draft`, "draft"), headers: as(ALICE) }))).statusCode).toBe(200);
    const own = readHandler(blog(dynamoRecordStore(), { ...inProcess, listing: undefined }));
    const requests = [get(`/posts/${slug}`), get(`/posts/${slug}-missing`), get(`/posts/${slug}-draft`, as(BOB)), get(`/posts/${slug}-draft`, as(ALICE))];
    const statuses: number[] = [];
    for (const request of requests) {
      const [expected, actual] = [await call(whole, request), await call(own, request)];
      expect(actual).toEqual(expected);
      statuses.push(actual.statusCode);
    }
    expect(statuses).toEqual([200, 404, 404, 200]);
  });

  it("is the handler of every record read with per-route packaging, and of nothing else", () => {
    const functions = Object.values(serverlessFunctions(deriveRoutes(app)));
    const reads = functions.filter((f) => f.handler === "functions/rest-read.handler");
    expect(reads.map((f) => f.description).sort()).toEqual(
      deriveRoutes(app)
        .filter((r) => r.target.kind === "crud" && r.target.action === "get")
        .map((r) => r.key)
        .sort(),
    );
    expect(functions.filter((f) => f.handler !== "functions/rest-read.handler").every((f) => f.handler === "functions/rest.handler")).toBe(true);
    // Grouped packaging keeps one handler per group.
    expect(new Set(Object.values(serverlessFunctions(deriveRoutes(app), { packaging: "model" })).map((f) => f.handler))).toEqual(
      new Set(["functions/rest.handler"]),
    );
  });
});
