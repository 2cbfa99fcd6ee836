import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { MAX_BODY_DEPTH } from "../../lib/http/body.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { call, httpEvent, lambdaContext } from "../support/http-events.ts";
import { asServerlessOffline } from "../support/offline-env.ts";

const app = blog();
const handler = restHandler(app);
const alice = { "x-test-user": ALICE, "content-type": "application/json" };

asServerlessOffline();

/** A REST API (payload 1.0) event, as API Gateway's REST APIs and `serverless offline --useV1` send. */
function v1Event(
  method: string,
  path: string,
  resource: string,
  options: { body?: string; base64?: boolean; headers?: Record<string, string> } = {},
): APIGatewayProxyEvent {
  return {
    httpMethod: method,
    path: `/prod${path}`,
    resource,
    headers: { ...(options.body !== undefined ? { "Content-Type": "application/json" } : {}), ...options.headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: options.body ?? null,
    isBase64Encoded: options.base64 ?? false,
    requestContext: { requestId: "v1-request", stage: "prod", identity: { sourceIp: "127.0.0.1" } } as APIGatewayProxyEvent["requestContext"],
  };
}

async function callV1(event: APIGatewayProxyEvent) {
  const result = await (
    handler as unknown as (e: APIGatewayProxyEvent, c: unknown) => Promise<{ statusCode: number; headers?: Record<string, string>; body?: string }>
  )(event, lambdaContext());
  return { statusCode: result.statusCode, headers: result.headers ?? {}, body: result.body ? (JSON.parse(result.body) as unknown) : undefined };
}

describe("API Gateway payloads", () => {
  it("decodes a base64-encoded body (payload 2.0), including characters beyond ASCII", async () => {
    const body = post("b64", "published", { title: "Grüße 😀" });
    const event: APIGatewayProxyEventV2 = {
      ...httpEvent("POST", "/posts", { headers: alice }),
      body: Buffer.from(JSON.stringify(body)).toString("base64"),
      isBase64Encoded: true,
    };
    const created = await call(handler, event);
    expect(created).toMatchObject({ statusCode: 200, body: { slug: "b64", title: "Grüße 😀" } });
    const read = await call(handler, httpEvent("GET", "/posts/b64", { routeKey: "GET /posts/{slug}" }));
    expect(read.body).toMatchObject({ title: "Grüße 😀" });
  });

  it("serves payload 1.0: stage stripped from the path, route from the resource, base64 bodies, header names of any case", async () => {
    const body = Buffer.from(JSON.stringify(post("v1post"))).toString("base64");
    const created = await callV1(v1Event("POST", "/posts", "/posts", { body, base64: true, headers: { "X-Test-User": ALICE } }));
    expect(created).toMatchObject({ statusCode: 200, body: { slug: "v1post", author: ALICE } });
    const read = await callV1(v1Event("GET", "/posts/v1post", "/posts/{slug}"));
    expect(read).toMatchObject({ statusCode: 200, headers: { etag: expect.stringMatching(/^"1-/) }, body: { slug: "v1post" } });
    const missing = await callV1(v1Event("GET", "/posts/none", "/posts/{slug}"));
    expect(missing).toMatchObject({ statusCode: 404, body: { code: 404, message: expect.any(String) } });
    const broken = await callV1(
      v1Event("POST", "/posts", "/posts", { body: Buffer.from("{not json").toString("base64"), base64: true, headers: { "X-Test-User": ALICE } }),
    );
    expect(broken).toMatchObject({ statusCode: 400, body: { code: 400, errors: [{ path: "/" }] } });
  });

  it("refuses a body nested deeper than the limit with a 400, not a stack overflow", async () => {
    for (const text of [`${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`, `${"[".repeat(MAX_BODY_DEPTH + 1)}${"]".repeat(MAX_BODY_DEPTH + 1)}`]) {
      const answer = await call(handler, httpEvent("POST", "/posts", { rawBody: text, headers: alice }));
      expect(answer).toMatchObject({ statusCode: 400, body: { code: 400, errors: [{ path: "/", message: `nests deeper than ${MAX_BODY_DEPTH} levels` }] } });
    }
    // Brackets inside strings are text, not nesting.
    const fine = await call(
      handler,
      httpEvent("POST", "/posts", { body: post("brackets", "published", { content: "[".repeat(500) + '\\"{'.repeat(100) }), headers: alice }),
    );
    expect(fine.statusCode).toBe(200);
  });

  it("answers 400 when the emulator hands over a JSON body as a value instead of text", async () => {
    const event = { ...httpEvent("PUT", "/posts/b64", { headers: alice, routeKey: "PUT /posts/{slug}" }), body: false as unknown as string };
    expect(await call(handler, event)).toMatchObject({ statusCode: 400, body: { code: 400, errors: [{ path: "/", message: "must be a JSON object" }] } });
  });
});

describe("ETags per view", () => {
  it("gives differently redacted views of one record different tags, and the same view the same tag", async () => {
    // The address is the server's to write (the authentication service's, from the sign-in).
    const created = await app.domain.create(as(ALICE), model(app, "User"), { username: "etagger", name: "E" }, { email: "etag@example.com" });
    const uuid = created.data.uuid as string;
    const get = (headers: Record<string, string> = {}) => call(handler, httpEvent("GET", `/users/${uuid}`, { routeKey: "GET /users/{uuid}", headers }));
    const owner = await get({ "x-test-user": ALICE });
    const stranger = await get({ "x-test-user": "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0999" });
    const anonymous = await get();
    expect(owner.body).toMatchObject({ email: "etag@example.com" });
    expect(stranger.body).not.toHaveProperty("email");
    // One version, two views, two tags; the same view twice, one tag.
    expect(owner.headers.etag).toMatch(/^"1-/);
    expect(stranger.headers.etag).toMatch(/^"1-/);
    expect(owner.headers.etag).not.toBe(stranger.headers.etag);
    expect(anonymous.headers.etag).toBe(stranger.headers.etag);
    // The stranger's tag does not get the owner a 304 (and so a cached stranger's view).
    expect((await get({ "x-test-user": ALICE, "if-none-match": stranger.headers.etag ?? "" })).statusCode).toBe(200);
    expect((await get({ "x-test-user": ALICE, "if-none-match": owner.headers.etag ?? "" })).statusCode).toBe(304);
    // Writes are conditioned on the version: either view's tag names version 1.
    const patched = await call(
      handler,
      httpEvent("PATCH", `/users/${uuid}`, {
        body: { name: "F" },
        headers: { ...alice, "if-match": stranger.headers.etag ?? "" },
        routeKey: "PATCH /users/{uuid}",
      }),
    );
    expect(patched.statusCode).toBe(200);
  });
});
