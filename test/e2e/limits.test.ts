import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { DEFAULT_PAGE_BYTES } from "../../lib/core/list.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { realtimeTableNames } from "../../lib/realtime/tables.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { waitFor as waitUntil } from "../support/wait.ts";

/**
 * Two limits end to end against `npm start` (seeded, real logins, no test-user seam): connections
 * per signed-in user over a real graphql-ws client (a small limit set through npm start's
 * environment), and list pages cut by the byte budget (Post's default 5 MiB, real volume) on REST
 * and GraphQL, followed through their continuation tokens.
 */

const LIMIT = 2;
const WS_URL = `ws://127.0.0.1:${OFFLINE_PORTS.websocket}`;
const TABLES = realtimeTableNames("blog-local-");
const run = randomUUID().slice(0, 8);
let offline: Offline | undefined;
let db: DynamoDBDocumentClient;
const clients: Client[] = [];
const tokens: Record<"alice" | "bob", string> = { alice: "", bob: "" };
let aliceId = "";

async function login(name: "alice" | "bob"): Promise<{ token: string; userId: string }> {
  const response = await fetch(`${offline?.url}/auth/email/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}@example.com`, password: `${name}-demo-password` }),
  });
  const body = (await response.json()) as { access_token?: string; user?: { uuid: string } };
  if (response.status !== 200 || !body.access_token || !body.user) throw new Error(`login ${name}: ${response.status} ${JSON.stringify(body)}`);
  return { token: body.access_token, userId: body.user.uuid };
}

beforeAll(async () => {
  offline = await startOffline({ args: [], testUser: false, env: { WS_MAX_CONNECTIONS_PER_USER: String(LIMIT), PASSWORD_COST_LN: "12" } });
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline.output())?.[1];
  if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline.output()}`);
  db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  const alice = await login("alice");
  tokens.alice = alice.token;
  aliceId = alice.userId;
  tokens.bob = (await login("bob")).token;
}, 400_000);

afterAll(async () => {
  for (const client of clients) await client.dispose();
  db?.destroy();
  await offline?.stop();
}, 60_000);

interface Socket {
  client: Client;
  /** "connected" once connection_ack arrived; "closed" when the socket closed before it. */
  outcome: Promise<"connected" | "closed">;
  /** The underlying socket, to drop it the way a crashed tab does (no close frame). */
  raw: () => WebSocket | undefined;
}

function open(token?: string): Socket {
  let raw: WebSocket | undefined;
  let settle: (value: "connected" | "closed") => void = () => undefined;
  const outcome = new Promise<"connected" | "closed">((resolve) => (settle = resolve));
  const client = createClient({
    url: WS_URL,
    webSocketImpl: WebSocket,
    connectionParams: token ? { accessToken: token } : {},
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => undefined,
    on: {
      opened: (socket) => (raw = socket as WebSocket),
      connected: () => settle("connected"),
      closed: () => settle("closed"),
    },
  });
  clients.push(client);
  return { client, outcome, raw: () => raw };
}

async function connectedCount(sockets: Socket[]): Promise<number> {
  return (await Promise.all(sockets.map((s) => s.outcome))).filter((o) => o === "connected").length;
}

/** Alice's live places, read as the service reads them (her one item, consistently). */
async function places(userId = aliceId): Promise<{ connectionId: string; expiresAt: number }[]> {
  const out = await db.send(new GetCommand({ TableName: TABLES.userConnections, Key: { userId }, ConsistentRead: true }));
  const map = (out.Item?.places ?? {}) as Record<string, number>;
  return Object.entries(map)
    .filter(([, expiresAt]) => expiresAt * 1000 > Date.now())
    .map(([connectionId, expiresAt]) => ({ connectionId, expiresAt }));
}

/** Connection rows of a user: a Scan is fine in a test of a tiny local table; the service never scans it. */
async function connectionRows(userId = aliceId): Promise<Record<string, unknown>[]> {
  const out = await db.send(
    new ScanCommand({ TableName: TABLES.connections, FilterExpression: "userId = :u", ExpressionAttributeValues: { ":u": userId }, ConsistentRead: true }),
  );
  return out.Items ?? [];
}

const waitFor = <T>(probe: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeout = 30_000): Promise<T> =>
  waitUntil(probe, done, what, timeout);

/** Opens Alice sockets one at a time until one is acknowledged (her slot is freed asynchronously by $disconnect). */
async function openWhenFree(): Promise<Socket> {
  let socket: Socket | undefined;
  await waitFor(
    async () => {
      socket = open(tokens.alice);
      return socket.outcome;
    },
    (outcome) => outcome === "connected",
    "a free place for Alice",
  );
  return socket as Socket;
}

describe("WebSocket connections per signed-in user", () => {
  it("acknowledges up to the limit, refuses the next connection_init and keeps nothing of it; other users and anonymous ones are not counted", async () => {
    const first = open(tokens.alice);
    const second = open(tokens.alice);
    expect(await connectedCount([first, second])).toBe(LIMIT);
    const third = open(tokens.alice);
    expect(await third.outcome).toBe("closed");
    expect(await places()).toHaveLength(LIMIT);
    expect(await connectionRows()).toHaveLength(LIMIT);

    const others = [open(tokens.bob), open(), open(), open()];
    expect(await connectedCount(others)).toBe(others.length);

    // The two acknowledged sockets still work: a subscription on one of them is served.
    const feed: unknown[] = [];
    first.client.subscribe(
      { query: `subscription { Posts(query: "slug = 'ws-${run}'") { type } }` },
      { next: (v) => feed.push(v), error: (e) => feed.push(e), complete: () => undefined },
    );
    await waitFor(
      async () => (await db.send(new ScanCommand({ TableName: TABLES.subscriptions, ConsistentRead: true }))).Items ?? [],
      (items) => items.some((i) => String(i.query).includes(`ws-${run}`)),
      "the subscription row",
    );
    expect(feed).toEqual([]);

    // Tabs closed abruptly (no close frame): $disconnect frees their places.
    first.raw()?.terminate();
    second.raw()?.terminate();
    await waitFor(
      () => places(),
      (r) => r.length === 0,
      "Alice's places to be freed",
    );
    const again = [await openWhenFree(), await openWhenFree()];
    expect(await connectedCount(again)).toBe(LIMIT);
    for (const socket of again) await socket.client.dispose();
    await waitFor(
      () => places(),
      (r) => r.length === 0,
      "Alice's places to be freed",
    );
  });

  it("holds the limit through a reconnect storm: exactly the limit acknowledged, one place per acknowledged socket", async () => {
    const storm = Array.from({ length: 8 }, () => open(tokens.alice));
    const admitted = await connectedCount(storm);
    expect(admitted).toBe(LIMIT);
    expect(await places()).toHaveLength(admitted);
    expect(await connectionRows()).toHaveLength(admitted);
    for (const socket of storm) await socket.client.dispose();
    await waitFor(
      () => places(),
      (r) => r.length === 0,
      "Alice's places to be freed",
    );
  });

  it("reclaims the place of a socket API Gateway no longer knows (its $disconnect was lost)", async () => {
    const live = await openWhenFree();
    // A connection whose $disconnect never ran: its rows remain, offline's management API answers 410.
    const ghost = `ghost-${run}`;
    const expiresAt = Math.ceil(Date.now() / 1000) + 3600;
    const endpoint = `http://127.0.0.1:${OFFLINE_PORTS.websocket}`;
    await db.send(
      new PutCommand({
        TableName: TABLES.connections,
        Item: { connectionId: ghost, endpoint, connectedAt: Date.now(), state: "acknowledged", userId: aliceId, expiresAt, __version: 2 },
      }),
    );
    await db.send(
      new UpdateCommand({
        TableName: TABLES.userConnections,
        Key: { userId: aliceId },
        UpdateExpression: "SET places.#ghost = :expiresAt, #version = #version + :one",
        ExpressionAttributeNames: { "#ghost": ghost, "#version": "__version" },
        ExpressionAttributeValues: { ":expiresAt": expiresAt, ":one": 1 },
      }),
    );
    const next = open(tokens.alice);
    expect(await next.outcome).toBe("connected");
    const held = (await places()).map((r) => r.connectionId);
    expect(held).toHaveLength(LIMIT);
    expect(held).not.toContain(ghost);
    expect(await connectionRows()).toHaveLength(LIMIT);
    // Two live sockets: the next one is refused, and neither live one lost its place.
    expect(await open(tokens.alice).outcome).toBe("closed");
    expect(await places()).toHaveLength(LIMIT);
    await live.client.dispose();
    await next.client.dispose();
  });
});

/** What the budget counts: each record's JSON as returned, plus one byte (its comma). */
// As the service counts a record: inside Lambda's payload, where the body is a JSON string.
const sizeOf = (record: unknown): number => Buffer.byteLength(JSON.stringify(JSON.stringify(record))) - 2 + 1;
const LAMBDA_PAYLOAD = 6 * 1000 * 1000;

describe("list pages cut by the byte budget (Post: 5 MiB)", () => {
  const published: string[] = [];
  const prefix = `budget-${run}-`;

  beforeAll(async () => {
    // Near Post.content's 100,000-character maximum: 3-byte characters (300 KB of JSON) and
    // characters JSON escapes to 6 bytes (600 KB of JSON from a 100 KB item), so ~12 MB of
    // readable records, plus drafts the anonymous reader may not see, interleaved.
    const posts = Array.from({ length: 36 }, (_, i) => {
      const slug = `${prefix}${String(i).padStart(2, "0")}`;
      const draft = i % 6 === 5;
      const content = i % 2 === 0 ? "\u20ac".repeat(100_000 - i * 500) : "\u0001".repeat(100_000 - i * 500);
      return { slug, title: `Budget ${i}`, content, status: draft ? "draft" : "published", viewCount: i };
    });
    for (let i = 0; i < posts.length; i += 4) {
      await Promise.all(
        posts.slice(i, i + 4).map(async (post) => {
          const response = await fetch(`${offline?.url}/posts`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${tokens.alice}` },
            body: JSON.stringify(post),
          });
          if (response.status !== 200) throw new Error(`POST /posts ${post.slug}: ${response.status} ${await response.text()}`);
          if (post.status === "published") published.push(post.slug);
        }),
      );
    }
  }, 300_000);

  let restPages: string[][] = [];

  it("REST: every page under the budget and never short, resumed exactly where it stopped, no record lost or repeated, drafts skipped", async () => {
    const pages: Record<string, unknown>[][] = [];
    let token: string | null = null;
    do {
      const response = await fetch(`${offline?.url}/posts`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ q: `slug LIKE '${prefix}%'`, limit: 100, ...(token ? { continuationToken: token } : {}) }),
      });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThan(LAMBDA_PAYLOAD);
      const body = JSON.parse(text) as { results: Record<string, unknown>[]; continuationToken: string | null };
      pages.push(body.results);
      token = body.continuationToken;
    } while (token && pages.length < 20);
    expect(token).toBeNull();
    expect(pages.length).toBeGreaterThanOrEqual(3);
    pages.forEach((page, i) => {
      const used = page.reduce((sum, r) => sum + sizeOf(r), 0);
      expect(used).toBeLessThanOrEqual(DEFAULT_PAGE_BYTES);
      // Never short: a page ends (below its 100 rows) only when the next readable record would not fit.
      const following = pages[i + 1]?.[0];
      if (following) expect(used + sizeOf(following)).toBeGreaterThan(DEFAULT_PAGE_BYTES);
    });
    restPages = pages.map((page) => page.map((r) => String(r.slug)));
    const slugs = restPages.flat();
    expect(new Set(slugs).size).toBe(slugs.length);
    expect([...slugs].sort()).toEqual([...published].sort());
  }, 120_000);

  it("GraphQL: the same pages through its own continuation tokens, each response under Lambda's payload limit", async () => {
    expect(restPages.length).toBeGreaterThanOrEqual(3);
    const pages: string[][] = [];
    let offset: string | null = null;
    do {
      const response = await fetch(`${offline?.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query:
            "query($q: String, $offset: String) { Posts(query: $q, limit: 100, offset: $offset) { results { slug title content status } continuationToken } }",
          variables: { q: `slug LIKE '${prefix}%'`, offset },
        }),
      });
      const text = await response.text();
      expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThan(LAMBDA_PAYLOAD);
      const body = JSON.parse(text) as { data?: { Posts: { results: { slug: string }[]; continuationToken: string | null } }; errors?: unknown };
      expect(body.errors).toBeUndefined();
      const list = body.data?.Posts;
      if (!list) throw new Error(text.slice(0, 500));
      pages.push(list.results.map((r) => r.slug));
      offset = list.continuationToken;
    } while (offset && pages.length < 20);
    expect(offset).toBeNull();
    expect(pages).toEqual(restPages);
  }, 120_000);
});
