import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";

let offline: Offline | undefined;
let base = "";
const ALICE = randomUUID();
const BOB = randomUUID();
const run = randomUUID().slice(0, 8);

beforeAll(async () => {
  offline = await sharedOffline();
  base = offline.url;
}, 400_000);

afterAll(async () => {
  await offline?.stop();
}, 60_000);

async function send(method: string, path: string, options: { body?: unknown; user?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.user ? { "x-test-user": options.user } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** A request with a body and no Content-Type header (fetch would add `text/plain`). */
function sendWithoutContentType(method: string, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

const post = (slug: string, status = "published") => ({ slug, title: `Title ${slug}`, content: "Body", status, viewCount: 1 });

describe("REST end to end (npm start: serverless offline + DynamoDB Local)", () => {
  it("serves the service routes of spec 4.2", async () => {
    expect(await send("GET", "/version")).toMatchObject({ status: 200, body: pkg.version });
    expect(await send("PUT", "/testbean/testoperation", { body: { counter: 48879 } })).toMatchObject({ status: 200, body: "beef" });
    expect(await send("PUT", "/publisher/publish", { body: { message: "hello" } })).toMatchObject({ status: 200, body: "Published: hello" });
    const slug = `pp-${run}`;
    await send("POST", "/posts", { body: post(slug, "draft"), user: ALICE });
    expect(await send("PUT", "/publisher/publishpost", { body: { postId: slug }, user: ALICE })).toMatchObject({
      status: 200,
      body: { postId: slug, status: "published" },
    });
  });

  it("creates, reads, replaces, patches and deletes with the real key in the path", async () => {
    const slug = `crud-${run}`;
    const created = await send("POST", "/posts", { body: post(slug), user: ALICE });
    expect(created).toMatchObject({ status: 200, body: { slug, author: ALICE } });
    const etag = created.headers.get("etag");
    expect(etag).toMatch(/^"1-[\w-]{16}"$/);
    expect((await send("GET", `/posts/${slug}`)).body).toMatchObject({ slug, title: `Title ${slug}` });
    const replaced = await send("PUT", `/posts/${slug}`, {
      body: { ...post(slug), title: "Replaced", viewCount: 9 },
      user: ALICE,
      headers: { "if-match": etag ?? "" },
    });
    expect(replaced).toMatchObject({ status: 200, body: { title: "Replaced", viewCount: 9 } });
    const patched = await send("PATCH", `/posts/${slug}`, { body: { slug, content: "Patched" }, user: ALICE });
    expect(patched.body).toMatchObject({ title: "Replaced", content: "Patched", viewCount: 9 });
    expect(patched.headers.get("etag")).toMatch(/^"3-[\w-]{16}"$/);
    const deleted = await send("DELETE", `/posts/${slug}`, { user: ALICE });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(await send("GET", `/posts/${slug}`)).toMatchObject({ status: 404, body: { code: 404 } });
  });

  it("refuses a stale If-Match with 412 and keeps the newer write", async () => {
    const slug = `etag-${run}`;
    await send("POST", "/posts", { body: post(slug), user: ALICE });
    await send("PATCH", `/posts/${slug}`, { body: { title: "Second" }, user: ALICE, headers: { "if-match": '"1"' } });
    const stale = await send("PATCH", `/posts/${slug}`, { body: { title: "Lost" }, user: ALICE, headers: { "if-match": '"1"' } });
    expect(stale).toMatchObject({ status: 412, body: { code: 412 } });
    expect((await send("DELETE", `/posts/${slug}`, { user: ALICE, headers: { "if-match": '"1"' } })).status).toBe(412);
    expect((await send("GET", `/posts/${slug}`)).body).toMatchObject({ title: "Second" });
  });

  it("serves a composite-key model with one path segment per key field", async () => {
    const slug = `tagged-${run}`;
    await send("POST", "/posts", { body: post(slug), user: BOB });
    expect((await send("POST", "/tags", { body: { slug: `t-${run}`, name: "T", description: "d", color: "#123456" }, user: BOB })).status).toBe(200);
    expect((await send("POST", "/posttags", { body: { post: slug, tag: `t-${run}` }, user: BOB })).status).toBe(200);
    expect((await send("GET", `/posttags/${slug}/t-${run}`)).body).toMatchObject({ post: slug, tag: `t-${run}`, createdBy: BOB });
    expect((await send("POST", "/posttags", { body: { post: slug, tag: `t-${run}` }, user: BOB })).status).toBe(409);
    expect((await send("DELETE", `/posttags/${slug}/t-${run}`, { user: BOB })).status).toBe(204);
  });

  it("queries with a LIKE filter and pages through continuation tokens", async () => {
    for (let i = 0; i < 7; i++) await send("POST", "/posts", { body: post(`page-${run}-${i}`), user: BOB });
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page = await send("PUT", "/posts", { body: { q: `slug LIKE 'page-${run}-%'`, limit: 3, continuationToken: token } });
      expect(page.status).toBe(200);
      const body = page.body as { results: { slug: string }[]; continuationToken: string | null };
      seen.push(...body.results.map((r) => r.slug));
      if (body.continuationToken) expect(body.results).toHaveLength(3);
      token = body.continuationToken;
    } while (token);
    expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `page-${run}-${i}`));
    const bad = await send("PUT", "/posts", { body: { q: "slug LIKE" } });
    expect(bad).toMatchObject({ status: 400, body: { code: 400 } });
    expect((bad.body as { message: string }).message).toMatch(/column/);
    expect((await send("PUT", "/posts", { body: { q: "", limit: 5000 } })).status).toBe(400);
    expect((await send("PUT", "/posts", { body: { q: "", continuationToken: "forged" } })).status).toBe(400);
  });

  it("runs the Post publish operation for its author", async () => {
    const slug = `op-${run}`;
    await send("POST", "/posts", { body: post(slug), user: ALICE });
    expect(await send("PUT", `/posts/${slug}/publish`, { body: { destination: "linkedin" }, user: ALICE })).toMatchObject({
      status: 200,
      body: `Post '${slug}' shared on linkedin`,
    });
    const invalid = await send("PUT", `/posts/${slug}/publish`, { body: { destination: "fax" }, user: ALICE });
    expect(invalid).toMatchObject({ status: 400, body: { errors: [{ path: "/destination" }] } });
    expect((await send("PUT", `/posts/${slug}/publish`, { body: { destination: "twitter" }, user: BOB })).status).toBe(403);
  });

  it("answers every error row in our format", async () => {
    const validation = await send("POST", "/users", { body: { username: "ab", bio: 7, name: "N" }, user: ALICE });
    expect(validation).toMatchObject({
      status: 400,
      body: {
        code: 400,
        message: expect.any(String),
        errors: expect.arrayContaining([
          { path: "/bio", message: expect.any(String) },
          { path: "/username", message: expect.any(String) },
        ]),
      },
    });
    // The address is the server's: a client naming it is refused, naming it.
    const owned = await send("POST", "/users", { body: { username: "abc", email: "a@example.com", name: "N" }, user: ALICE });
    expect(owned).toMatchObject({ status: 400, body: { code: 400, errors: [{ path: "/email", message: expect.any(String) }] } });
    expect(await send("POST", "/posts", { body: post(`anon-${run}`) })).toMatchObject({ status: 401, body: { code: 401 } });
    expect(await send("GET", "/no/such/route")).toMatchObject({ status: 404, body: { code: 404 } });
    const wrongMethod = await send("POST", `/posts/x-${run}`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, PUT, PATCH, DELETE");
    expect((await send("POST", "/posts", { body: "not json", user: ALICE, headers: { "content-type": "text/plain" } })).status).toBe(415);
    // No Content-Type at all: API Gateway passes none and so must offline (it used to add one).
    const untyped = await sendWithoutContentType("POST", "/posts", JSON.stringify(post(`untyped-${run}`)), { "x-test-user": ALICE });
    expect(untyped).toMatchObject({ status: 415, body: { code: 415 } });
    expect((await send("GET", `/posts/untyped-${run}`)).status).toBe(404);
    expect(await send("POST", "/posts", { body: "{oops", user: ALICE })).toMatchObject({ status: 400, body: { message: "Malformed JSON body" } });
    expect((await send("POST", "/posts", { body: { ...post(`big-${run}`), content: "x".repeat(1_100_000) }, user: ALICE })).status).toBe(413);
    await send("POST", "/posts", { body: post(`dup-${run}`), user: ALICE });
    expect(await send("POST", "/posts", { body: post(`dup-${run}`), user: ALICE })).toMatchObject({ status: 409, body: { code: 409 } });
  });

  it("serves its OpenAPI document", async () => {
    const answer = await send("GET", "/openapi.json");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ openapi: "3.1.0", paths: { "/posts/{slug}": { get: { operationId: "Post.get" } } } });
  });
});
