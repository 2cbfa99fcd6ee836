import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { app } from "../../app/index.ts";
import { migrationTables } from "../../lib/auth/v3/setup.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { OFFLINE_PORTS, OFFLINE_STAGE } from "../../lib/local/offline.ts";
import { realtimeTableNames } from "../../lib/realtime/tables.ts";
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";

/**
 * The sample blog's authorization matrix, end to end against `npm start`: every REST route kind,
 * GraphQL field (nested included) and subscription, for an anonymous caller, another user and the
 * owner, plus one case for each hole the issue found. The expectations are the policy the README
 * states, written out: a change of policy must change this table.
 */

let offline: Offline | undefined;
const clients: Client[] = [];
const run = randomUUID().slice(0, 8);
const OWNER = randomUUID();
const OTHER = randomUUID();
const OPEN = `open-${run}`;
const DRAFT = `draft-${run}`;
const TAG = `tag-${run}`;
const SPARE = `spare-${run}`;
const EMAIL = `owner-${run}@example.com`;
let openComment = "";
let draftComment = "";
let otherComment = "";

type Caller = "anonymous" | "other" | "owner";
const CALLERS: Caller[] = ["anonymous", "other", "owner"];
const userOf = (caller: Caller): string | undefined => (caller === "owner" ? OWNER : caller === "other" ? OTHER : undefined);

async function send(method: string, path: string, caller: Caller, body?: unknown) {
  const user = userOf(caller);
  const response = await fetch(`${offline?.url}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...(user ? { "x-test-user": user } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined, text };
}

async function gql(query: string, caller: Caller) {
  const user = userOf(caller);
  const response = await fetch(`${offline?.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(user ? { "x-test-user": user } : {}) },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { text, ...(JSON.parse(text) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] }) };
}

const post = (slug: string, status: string) => ({ slug, title: `Secret title ${slug}`, content: "c", status, viewCount: 0 });

beforeAll(async () => {
  offline = await sharedOffline();
  const must = async (method: string, path: string, body: unknown) => {
    const answer = await send(method, path, "owner", body);
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body as Record<string, unknown>;
  };
  await must("POST", "/users", { username: `owner${run}`, name: "Owner" });
  // The address is the server's to write (the authentication service's, from a sign-in): set in
  // npm start's DynamoDB Local as a sign-in would have left it.
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline.output())?.[1];
  if (!endpoint) throw new Error("npm start did not say where DynamoDB Local is");
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  await db.send(
    new UpdateCommand({
      TableName: migrationTables(app, `${app.name}-${OFFLINE_STAGE}-`).users,
      Key: { uuid: OWNER },
      UpdateExpression: "SET #e = :e",
      ExpressionAttributeNames: { "#e": "email" },
      ExpressionAttributeValues: { ":e": EMAIL },
    }),
  );
  await must("POST", "/posts", post(OPEN, "published"));
  await must("POST", "/posts", post(DRAFT, "draft"));
  await must("POST", "/tags", { slug: TAG, name: "T", description: "", color: "#123456" });
  await must("POST", "/posttags", { post: OPEN, tag: TAG });
  await must("POST", "/posttags", { post: DRAFT, tag: TAG });
  await must("POST", "/tags", { slug: SPARE, name: "S", description: "", color: "#654321" });
  await must("POST", "/posttags", { post: OPEN, tag: SPARE });
  openComment = String((await must("POST", "/comments", { content: `on open ${run}`, post: OPEN, author: OWNER })).uuid);
  draftComment = String((await must("POST", "/comments", { content: `on draft ${run}`, post: DRAFT, author: OWNER })).uuid);
  const byOther = await send("POST", "/comments", "other", { content: `other's ${run}`, post: OPEN, author: OTHER });
  if (byOther.status !== 200) throw new Error(`POST /comments as other: ${byOther.status} ${byOther.text}`);
  otherComment = String(byOther.body?.uuid);
}, 400_000);

afterAll(async () => {
  for (const client of clients) {
    try {
      client.terminate();
    } catch {
      // Never connected.
    }
  }
  await offline?.stop();
}, 60_000);

/** [what, method, path, body, expected status for anonymous, other, owner]. Writes that succeed come last per record. */
type Row = [string, string, () => string, (caller: Caller) => unknown, [number, number, number]];
const REST: Row[] = [
  ["read a published post", "GET", () => `/posts/${OPEN}`, () => undefined, [200, 200, 200]],
  ["read a draft", "GET", () => `/posts/${DRAFT}`, () => undefined, [404, 404, 200]],
  ["read a comment of a published post", "GET", () => `/comments/${openComment}`, () => undefined, [200, 200, 200]],
  ["read a comment of a draft", "GET", () => `/comments/${draftComment}`, () => undefined, [404, 404, 200]],
  ["read a draft's post-tag", "GET", () => `/posttags/${DRAFT}/${TAG}`, () => undefined, [404, 404, 200]],
  ["read a published post's post-tag", "GET", () => `/posttags/${OPEN}/${TAG}`, () => undefined, [200, 200, 200]],
  ["read a profile", "GET", () => `/users/${OWNER}`, () => undefined, [200, 200, 200]],
  ["read a tag", "GET", () => `/tags/${TAG}`, () => undefined, [200, 200, 200]],
  ["run an operation on a draft", "PUT", () => `/posts/${DRAFT}/publish`, () => ({ destination: "linkedin" }), [404, 404, 200]],
  ["run an operation on a published post", "PUT", () => `/posts/${OPEN}/publish`, () => ({ destination: "linkedin" }), [401, 403, 200]],
  ["patch a post", "PATCH", () => `/posts/${OPEN}`, () => ({ title: "Changed" }), [401, 403, 200]],
  ["replace a post", "PUT", () => `/posts/${OPEN}`, () => post(OPEN, "published"), [401, 403, 200]],
  ["patch a draft", "PATCH", () => `/posts/${DRAFT}`, () => ({ title: "Changed" }), [404, 404, 200]],
  ["patch a comment", "PATCH", () => `/comments/${openComment}`, () => ({ content: "edited" }), [401, 403, 200]],
  ["hand one's comment to another user", "PATCH", () => `/comments/${openComment}`, () => ({ author: OTHER }), [401, 403, 403]],
  ["replace one's comment in another's name", "PUT", () => `/comments/${openComment}`, () => ({ content: "x", post: OPEN, author: OTHER }), [401, 403, 403]],
  // The attack: the other user moves their comment onto the owner's draft or a missing post.
  ["move one's comment onto another's draft", "PATCH", () => `/comments/${otherComment}`, () => ({ post: DRAFT }), [401, 400, 403]],
  ["move one's comment onto a missing post", "PATCH", () => `/comments/${otherComment}`, () => ({ post: `nope-${run}` }), [401, 400, 403]],
  [
    "replace one's comment onto another's draft",
    "PUT",
    () => `/comments/${otherComment}`,
    () => ({ content: "moved", post: DRAFT, author: OTHER }),
    [401, 400, 403],
  ],
  ["comment on a draft", "POST", () => "/comments", (c) => ({ content: "hi", post: DRAFT, author: userOf(c) ?? OWNER }), [401, 400, 200]],
  ["comment on a missing post", "POST", () => "/comments", (c) => ({ content: "hi", post: `nope-${run}`, author: userOf(c) ?? OWNER }), [401, 400, 400]],
  ["comment on a published post", "POST", () => "/comments", (c) => ({ content: "hi", post: OPEN, author: userOf(c) ?? OWNER }), [401, 200, 200]],
  ["tag a post", "POST", () => "/posttags", () => ({ post: OPEN, tag: `other-${run}` }), [401, 403, 200]],
  ["patch a profile", "PATCH", () => `/users/${OWNER}`, () => ({ name: "Renamed" }), [401, 403, 200]],
  ["filter users by email", "PUT", () => "/users", () => ({ q: `email = '${EMAIL}'` }), [400, 400, 400]],
  ["filter users by an email nobody has", "PUT", () => "/users", () => ({ q: "email = 'nobody@example.com'" }), [400, 400, 400]],
  ["order users by email", "PUT", () => "/users", () => ({ q: "ORDER BY email" }), [400, 400, 400]],
  ["untag a post", "DELETE", () => `/posttags/${OPEN}/${SPARE}`, () => undefined, [401, 403, 204]],
  ["delete a comment", "DELETE", () => `/comments/${openComment}`, () => undefined, [401, 403, 204]],
];

// Each function's first call under offline is a cold start, and the REST matrix calls most of them.
describe("authorization matrix end to end (npm start)", { timeout: 120_000 }, () => {
  it("answers every REST route as the policy says, for anonymous, another user and the owner", async () => {
    const table: string[] = [];
    const mismatches: string[] = [];
    for (const [what, method, path, body, expected] of REST) {
      const got: number[] = [];
      for (const caller of CALLERS) got.push((await send(method, path(), caller, body(caller))).status);
      table.push(`${what.padEnd(42)} ${got.join(" ")}`);
      if (JSON.stringify(got) !== JSON.stringify(expected)) mismatches.push(`${what}: expected ${expected.join("/")}, got ${got.join("/")}`);
    }
    console.info(`REST matrix (anonymous other owner):\n${table.join("\n")}`);
    expect(mismatches).toEqual([]);
  });

  it("never shows the email to anyone but its owner, and a filter on it is refused naming it", async () => {
    for (const caller of CALLERS) {
      const profile = await send("GET", `/users/${OWNER}`, caller);
      expect(profile.text.includes(EMAIL)).toBe(caller === "owner");
      const listed = await send("PUT", "/users", caller, { q: `username = 'owner${run}'` });
      expect(listed.text.includes(EMAIL)).toBe(caller === "owner");
      const filtered = await send("PUT", "/users", caller, { q: `email = '${EMAIL}'` });
      expect(filtered.body).toMatchObject({ code: 400, message: expect.stringContaining("'email'") });
      const graph = await gql(`{ Users(query: "email LIKE 'owner%'") { results { uuid } } }`, caller);
      expect(graph.errors?.[0]?.extensions?.code).toBe("BAD_QUERY");
    }
  });

  it("answers every GraphQL field, nested ones included, as the policy says", async () => {
    const draftText = String((await send("GET", `/posts/${DRAFT}`, "owner")).body?.title);
    expect(draftText.length).toBeGreaterThan(3);
    for (const caller of CALLERS) {
      const owner = caller === "owner";
      const reads = await gql(
        `{
        draft: Post(slug: "${DRAFT}") { title }
        open: Post(slug: "${OPEN}") { title comments { results { content post { title } } } tags { slug } }
        draftComment: Comment(uuid: "${draftComment}") { content post { title } }
        draftTag: PostTag(post: "${DRAFT}", tag: "${TAG}") { post { slug } tag { slug } }
        drafts: Posts(query: "status = 'draft' AND author = '${OWNER}'") { results { slug } }
        draftComments: Comments(query: "post = '${DRAFT}'") { results { content } }
        tagRows: PostTags(query: "tag = '${TAG}'") { results { post { slug } } }
        owner: User(uuid: "${OWNER}") { username email }
      }`,
        caller,
      );
      expect(reads.errors).toBeUndefined();
      const data = reads.data as Record<string, Record<string, unknown> | null>;
      expect(data.draft).toEqual(owner ? { title: draftText } : null);
      expect(data.draftComment).toEqual(owner ? { content: `on draft ${run}`, post: { title: draftText } } : null);
      expect(data.draftTag === null).toBe(!owner);
      expect((data.drafts?.results as unknown[]).length).toBe(owner ? 1 : 0);
      // The owner's own comments on the draft (the REST matrix added one); nobody else sees any.
      expect((data.draftComments?.results as unknown[]).length > 0).toBe(owner);
      expect((data.tagRows?.results as { post: { slug: string } | null }[]).map((r) => r.post?.slug).includes(DRAFT)).toBe(owner);
      expect(data.owner?.email ?? null).toBe(owner ? EMAIL : null);
      expect(reads.text.includes(draftText)).toBe(owner);
      // The comments and tags of the published post are everyone's.
      expect(data.open?.tags).toEqual([{ slug: TAG }]);

      const code = async (mutation: string) => (await gql(mutation, caller)).errors?.[0]?.extensions?.code ?? "OK";
      expect(await code(`mutation { publishPost(slug: "${DRAFT}", destination: "twitter") }`)).toBe(owner ? "OK" : "NOT_FOUND");
      expect(await code(`mutation { publishPost(slug: "nope-${run}", destination: "twitter") }`)).toBe("NOT_FOUND");
      expect(await code(`mutation { createComment(Comment: { content: "g", post: "${DRAFT}", author: "${userOf(caller) ?? OWNER}" }) { uuid } }`)).toBe(
        caller === "anonymous" ? "UNAUTHENTICATED" : owner ? "OK" : "BAD_USER_INPUT",
      );
      expect(
        await code(`mutation { updateComment(uuid: "${otherComment}", Comment: { content: "moved", post: "${DRAFT}", author: "${OTHER}" }) { uuid } }`),
      ).toBe(caller === "anonymous" ? "UNAUTHENTICATED" : owner ? "PERMISSION_DENIED" : "BAD_USER_INPUT");
      expect(await code(`mutation { updateComment(uuid: "${draftComment}", Comment: { content: "x", post: "${DRAFT}", author: "${OTHER}" }) { uuid } }`)).toBe(
        owner ? "PERMISSION_DENIED" : "NOT_FOUND",
      );
      expect(await code(`mutation { createPostTag(PostTag: { post: "${OPEN}", tag: "g-${run}" }) { __typename } }`)).toBe(
        caller === "anonymous" ? "UNAUTHENTICATED" : owner ? "OK" : "PERMISSION_DENIED",
      );
    }
  });

  it("counts every list by the size it can reach: a LIMIT in the query string, relation lists", async () => {
    const costly = await gql(`{ Posts(query: "LIMIT 1000") { results { slug tags { slug } } } }`, "anonymous");
    expect(costly.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_COSTLY");
    const small = await gql(`{ Posts(query: "status = 'published' LIMIT 5") { results { slug tags(limit: 3) { slug } } } }`, "anonymous");
    expect(small.errors).toBeUndefined();
    const over = await gql(`{ Post(slug: "${OPEN}") { tags(limit: 1000) { slug } } }`, "anonymous");
    expect(over.errors?.[0]?.extensions?.code).toBe("BAD_QUERY");
  });

  it("answers DynamoDB's limits as client errors, never a 500", async () => {
    expect((await send("GET", `/posts/${"k".repeat(2100)}`, "anonymous")).status).toBe(400);
    expect((await send("PUT", "/posts", "anonymous", { q: "viewCount < 1e400" })).body).toMatchObject({ code: 400 });
    expect((await send("PUT", "/posts", "anonymous", { q: "viewCount > 1e200" })).status).toBe(400);
    expect((await send("PUT", "/comments", "anonymous", { q: `post = '${"p".repeat(2100)}'` })).status).toBe(400);
    expect((await send("POST", "/comments", "other", { content: "x", post: "p".repeat(2100), author: OTHER })).status).toBe(400);
    // As wide as the filter limits allow (docs/query-language.md, "Filter width"): answered.
    const wide = (n: number) => Array.from({ length: n }, (_, i) => `viewCount = ${i}`).join(" OR ");
    expect((await send("PUT", "/posts", "anonymous", { q: `status = 'published' AND (${wide(100)})` })).status).toBe(200);
    // Wider: refused before any evaluation, naming the limit.
    const wider = await send("PUT", "/posts", "anonymous", { q: `status = 'published' AND (${wide(600)})` });
    expect(wider.status).toBe(400);
    expect(JSON.stringify(wider.body)).toContain("OR branches");
  });
});

describe("subscriptions end to end (npm start)", () => {
  const connect = (caller: Caller): Client => {
    const user = userOf(caller);
    const client = createClient({
      url: `ws://127.0.0.1:${OFFLINE_PORTS.websocket}`,
      webSocketImpl: WebSocket,
      connectionParams: user ? { testUser: user } : {},
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  };
  interface Feed {
    data: unknown[];
    errors: unknown[];
  }
  const listen = (client: Client, query: string): Feed => {
    const feed: Feed = { data: [], errors: [] };
    // A socket-level failure arrives as a CloseEvent or Error, whose fields JSON.stringify drops: kept readable.
    const readable = (e: unknown): unknown =>
      e instanceof Error
        ? { error: e.message }
        : typeof e === "object" && e !== null && "code" in e && "reason" in e
          ? { closed: (e as { code: unknown }).code, reason: (e as { reason: unknown }).reason }
          : e;
    client.subscribe({ query }, { next: (v) => feed.data.push(v.data), error: (e) => feed.errors.push(readable(e)), complete: () => undefined });
    return feed;
  };
  const until = async (done: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 60_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };

  /** Waits until the subscriptions table holds `count` rows of this document (the limit counts stored rows). */
  const waitForStored = async (document: string, count: number): Promise<void> => {
    const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline?.output() ?? "")?.[1];
    if (!endpoint) throw new Error("npm start did not say where DynamoDB Local is");
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const rows = (await db.send(new ScanCommand({ TableName: realtimeTableNames("blog-local-").subscriptions, ConsistentRead: true }))).Items ?? [];
        if (rows.filter((r) => String(r.query).includes(document)).length >= count) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} stored subscriptions`);
        await sleep(100);
      }
    } finally {
      db.destroy();
    }
  };

  it("accepts a watch on a hidden draft exactly as on a missing slug, and delivers only what the caller may read", async () => {
    const watched = {
      draft: `subscription { Post(slug: "${DRAFT}") { slug title } }`,
      comments: `subscription { Comments(query: "post = '${DRAFT}'") { type comment { content } } }`,
      open: `subscription { Post(slug: "${OPEN}") { slug title } }`,
    };
    const feeds = Object.fromEntries(
      CALLERS.map((caller) => {
        const client = connect(caller);
        return [
          caller,
          {
            draft: listen(client, watched.draft),
            missing: listen(client, `subscription { Post(slug: "missing-${run}") { slug } }`),
            comments: listen(client, watched.comments),
            email: listen(client, `subscription { Users(query: "email = '${EMAIL}'") { type } }`),
            open: listen(client, watched.open),
          },
        ];
      }),
    ) as unknown as Record<Caller, Record<string, Feed>>;
    // The filter on a hidden field is refused for everyone, before anything is stored.
    await until(() => CALLERS.every((c) => feeds[c].email?.errors.length === 1), "the email filter's refusals");
    for (const caller of CALLERS) expect(JSON.stringify(feeds[caller].email?.errors)).toContain("BAD_QUERY");
    // Once every caller's watches on what changes next are stored, change the draft, its comments and the open post.
    for (const document of Object.values(watched)) await waitForStored(document, CALLERS.length);
    await send("PATCH", `/posts/${DRAFT}`, "owner", { title: `Renamed draft ${run}` });
    await send("POST", "/comments", "owner", { content: `late ${run}`, post: DRAFT, author: OWNER });
    await send("PATCH", `/posts/${OPEN}`, "owner", { title: `Renamed open ${run}` });
    await until(() => CALLERS.every((c) => (feeds[c].open?.data.length ?? 0) > 0), "the published post's update for everyone");
    await until(() => (feeds.owner.draft?.data.length ?? 0) > 0 && (feeds.owner.comments?.data.length ?? 0) > 0, "the owner's draft events");
    for (const caller of ["anonymous", "other"] as const) {
      expect(feeds[caller].draft).toEqual({ data: [], errors: [] });
      expect(feeds[caller].missing).toEqual({ data: [], errors: [] });
      expect(feeds[caller].comments).toEqual({ data: [], errors: [] });
    }
  }, 120_000);

  it("holds WebSocket limits: an error for the subscription over a limit, nothing stored, later events flow", async () => {
    const client = connect("other");
    const tooLong = listen(client, `subscription { Posts(query: "${"title != 'x' AND ".repeat(200)}title != 'y'") { type } }`);
    const tooLarge = listen(client, `subscription { Posts(query: "status = 'published'") { type ${"__typename ".repeat(7000)} } }`);
    // Named for this run, so its stored rows can be counted in the subscriptions table.
    const watch = `subscription Held_${run.replace(/-/g, "_")} { Post(slug: "${OPEN}") { slug } }`;
    const held = Array.from({ length: 24 }, () => listen(client, watch));
    await until(() => tooLong.errors.length === 1 && tooLarge.errors.length === 1, "the refusals");
    expect(JSON.stringify(tooLong.errors)).toContain("FILTER_TOO_LONG");
    expect(JSON.stringify(tooLarge.errors)).toContain("MESSAGE_TOO_LARGE");
    await waitForStored(watch, 24);
    // The 25th fits (the default limit); the 26th, sent once the 25th is stored, does not.
    held.push(listen(client, watch));
    await waitForStored(watch, 25);
    const over = listen(client, watch);
    await until(() => over.errors.length === 1, "the subscription over the per-connection limit");
    expect(JSON.stringify(over.errors)).toContain("TOO_MANY_SUBSCRIPTIONS");
    await send("PATCH", `/posts/${OPEN}`, "owner", { content: `again ${run}` });
    await until(() => held.every((f) => f.data.length > 0), "events on the subscriptions within the limit");
  }, 120_000);
});
