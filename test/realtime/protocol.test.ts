import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType } from "graphql-ws";
import { beforeAll, describe, expect, it } from "vitest";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import type { Realtime } from "../../lib/realtime/realtime.ts";
import { ALICE, BOB, as, blog, model, post } from "../support/blog.ts";
import { dynamoRepositories, ENDPOINT, FakeTransport, realtimeFor } from "./support.ts";

const app = blog();
const offlineUsers = connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } });
const OFFERED = { "sec-websocket-protocol": `${GRAPHQL_TRANSPORT_WS_PROTOCOL}, graphql-ws` };
let transport: FakeTransport;
let realtime: Realtime;
let counter = 0;

beforeAll(async () => {
  transport = new FakeTransport();
  realtime = realtimeFor(app, transport, await dynamoRepositories(), { initTimeoutMs: 3_000 }, offlineUsers);
  await app.domain.create(as(ALICE), model(app, "Post"), post("alices-draft", "draft"));
  await app.domain.create(as(ALICE), model(app, "Post"), post("alices-post", "published"));
});

function fresh(): string {
  return `conn-${process.pid}-${++counter}`;
}

async function open(headers: Record<string, string> = OFFERED, connectedAt = Date.now()): Promise<string> {
  const connectionId = fresh();
  const response = await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt, headers, cookies: [] });
  expect(response.statusCode).toBe(200);
  return connectionId;
}

function send(connectionId: string, message: unknown, receivedAt = Date.now()) {
  const body = typeof message === "string" ? message : JSON.stringify(message);
  return realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body, receivedAt, requestId: `r-${counter}` });
}

async function ready(payload?: Record<string, unknown>): Promise<string> {
  const id = await open();
  expect(await send(id, { type: MessageType.ConnectionInit, ...(payload ? { payload } : {}) })).toEqual({});
  expect(transport.messages(id)).toEqual([{ type: MessageType.ConnectionAck }]);
  return id;
}

function subscribe(connectionId: string, id: string, query: string, variables?: Record<string, unknown>) {
  return send(connectionId, { id, type: MessageType.Subscribe, payload: { query, ...(variables ? { variables } : {}) } });
}

const POSTS = `subscription($q: String) { Posts(query: $q) { type key post { slug status } } }`;

describe("graphql-transport-ws over stateless Lambdas (rows in DynamoDB Local)", () => {
  it("answers $connect with the subprotocol header and stores a pending connection", async () => {
    const connectionId = fresh();
    const response = await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt: Date.now(), headers: OFFERED, cookies: [] });
    expect(response).toEqual({ statusCode: 200, headers: { "Sec-WebSocket-Protocol": "graphql-transport-ws" } });
    expect(await realtime.store.getConnection(connectionId)).toMatchObject({ state: "pending", endpoint: ENDPOINT });
  });

  it("refuses a handshake that does not offer graphql-transport-ws, and one whose identity is refused", async () => {
    const bare = await realtime.protocol.connect({ connectionId: fresh(), endpoint: ENDPOINT, connectedAt: Date.now(), headers: {}, cookies: [] });
    expect(bare.statusCode).toBe(400);
    const legacy = await realtime.protocol.connect({
      connectionId: fresh(),
      endpoint: ENDPOINT,
      connectedAt: Date.now(),
      headers: { "sec-websocket-protocol": "graphql-ws" },
      cookies: [],
    });
    expect(legacy.statusCode).toBe(400);
    const refusing = realtimeFor(
      app,
      transport,
      await dynamoRepositories(),
      {},
      { handshake: () => Promise.reject(new Error("bad cookie")), init: async () => undefined },
    );
    const refused = await refusing.protocol.connect({
      connectionId: fresh(),
      endpoint: ENDPOINT,
      connectedAt: Date.now(),
      headers: OFFERED,
      cookies: ["session=x"],
    });
    expect(refused.statusCode).toBe(401);
  });

  it("acknowledges connection_init, then closes a second one with 4429", async () => {
    const id = await ready();
    expect(await send(id, { type: MessageType.ConnectionInit })).toEqual({
      closed: { code: CloseCode.TooManyInitialisationRequests, reason: "Too many initialisation requests" },
    });
    expect(transport.disconnected).toContain(id);
    expect(await realtime.store.getConnection(id)).toBeUndefined();
  });

  it("closes with 4408 when connection_init, or anything else, comes after the init timeout", async () => {
    const late = await open(OFFERED, Date.now() - 10_000);
    expect((await send(late, { type: MessageType.ConnectionInit })).closed?.code).toBe(CloseCode.ConnectionInitialisationTimeout);
    const silent = await open(OFFERED, Date.now() - 10_000);
    expect((await send(silent, { type: MessageType.Ping })).closed?.code).toBe(CloseCode.ConnectionInitialisationTimeout);
    expect(transport.disconnected).toEqual(expect.arrayContaining([late, silent]));
    // Once acknowledged, age no longer matters.
    const id = await ready();
    expect(await send(id, { type: MessageType.Ping }, Date.now() + 60_000)).toEqual({});
  });

  it("gives a never-initialised row a short TTL and an acknowledged one the connection's lifetime", async () => {
    const connectedAt = Date.now();
    const id = await open(OFFERED, connectedAt);
    const pending = await realtime.store.getConnection(id);
    expect(pending?.expiresAt).toBe(Math.ceil((connectedAt + 25 * 60_000) / 1000));
    await send(id, { type: MessageType.ConnectionInit });
    expect((await realtime.store.getConnection(id))?.expiresAt).toBe(Math.ceil((connectedAt + 2 * 3_600_000 + 15 * 60_000) / 1000));
  });

  it("closes with 4400 on a frame that is not a graphql-ws message or is a server-only type", async () => {
    const a = await ready();
    expect((await send(a, "{not json")).closed).toEqual({ code: CloseCode.BadRequest, reason: "Invalid message received" });
    const b = await ready();
    expect((await send(b, { type: "subscribe", payload: { query: "{}" } })).closed?.code).toBe(CloseCode.BadRequest);
    const c = await ready();
    expect((await send(c, { type: MessageType.Next, id: "1", payload: {} })).closed).toEqual({
      code: CloseCode.BadRequest,
      reason: "Unexpected message of type next received",
    });
  });

  it("answers ping with pong (echoing the payload) and ignores pong, also before the ack", async () => {
    const id = await open();
    await send(id, { type: MessageType.Ping, payload: { at: 1 } });
    await send(id, { type: MessageType.Pong });
    await send(id, { type: MessageType.Ping });
    expect(transport.messages(id)).toEqual([{ type: MessageType.Pong, payload: { at: 1 } }, { type: MessageType.Pong }]);
  });

  it("closes a subscribe before the ack with 4401, after an error for that id", async () => {
    const id = await open();
    expect((await subscribe(id, "s1", POSTS)).closed?.code).toBe(CloseCode.Unauthorized);
    expect(transport.messages(id)).toEqual([
      { id: "s1", type: MessageType.Error, payload: [{ message: "Unauthorized", extensions: { code: "CONNECTION_CLOSED", closeCode: 4401 } }] },
    ]);
    expect(transport.disconnected).toContain(id);
  });

  it("stores a subscription, closes a second subscribe with the same id with 4409, and complete removes it", async () => {
    const id = await ready();
    expect(await subscribe(id, "s1", POSTS, { q: "status = 'published'" })).toEqual({});
    expect(await realtime.store.subscriptionsOf(id)).toMatchObject([{ id: "s1", kind: "list", model: "Post", topic: "Post", filter: "status = 'published'" }]);
    const other = await ready();
    await subscribe(other, "s1", POSTS);
    await send(other, { id: "s1", type: MessageType.Complete });
    expect(await realtime.store.subscriptionsOf(other)).toEqual([]);
    expect((await subscribe(id, "s1", POSTS)).closed).toEqual({ code: CloseCode.SubscriberAlreadyExists, reason: "Subscriber for s1 already exists" });
    expect(transport.messages(id).at(-1)).toMatchObject({ id: "s1", type: MessageType.Error });
    expect(await realtime.store.subscriptionsOf(id)).toEqual([]);
  });

  it("drops a subscribe whose complete was processed first (API Gateway may reorder frames)", async () => {
    const id = await ready();
    await send(id, { id: "s9", type: MessageType.Complete });
    expect(await subscribe(id, "s9", POSTS)).toEqual({});
    expect(await realtime.store.subscriptionsOf(id)).toEqual([]);
    expect(await subscribe(id, "s9", POSTS)).toEqual({});
    expect(await realtime.store.subscriptionsOf(id)).toHaveLength(1);
  });

  it("answers invalid subscriptions with an error message and keeps the socket", async () => {
    const id = await ready();
    const cases: [string, string, Record<string, unknown> | undefined, string][] = [
      ["bad-filter", POSTS, { q: "status = = 'x'" }, "BAD_QUERY"],
      ["unknown-field", POSTS, { q: "colour = 'red'" }, "BAD_QUERY"],
      ["wrong-type", POSTS, { q: "viewCount = 'many'" }, "BAD_QUERY"],
      ["query-op", '{ Post(slug: "alices-post") { slug } }', undefined, "OPERATION_NOT_SUPPORTED"],
      ["invalid", "subscription { Posts { nope } }", undefined, "GRAPHQL_VALIDATION_FAILED"],
      ["syntax", "subscription {", undefined, "GRAPHQL_PARSE_FAILED"],
      ["variables", POSTS, { q: 42 }, "BAD_USER_INPUT"],
      ["hidden-field", "subscription { Users(query: \"email = 'alice@example.com'\") { type } }", undefined, "BAD_QUERY"],
    ];
    for (const [sid, query, variables, code] of cases) {
      expect(await subscribe(id, sid, query, variables)).toEqual({});
      const last = transport.messages(id).at(-1) as { id: string; type: string; payload: { message: string; extensions: { code: string } }[] };
      expect({ id: last.id, type: last.type, code: last.payload[0]?.extensions.code }).toEqual({ id: sid, type: MessageType.Error, code });
    }
    expect(transport.disconnected).not.toContain(id);
    expect(await realtime.store.subscriptionsOf(id)).toEqual([]);
  });

  it("holds its limits: an error for the subscription over one, nothing stored, the socket kept", async () => {
    const roomy = realtime;
    realtime = realtimeFor(
      app,
      transport,
      await dynamoRepositories(),
      { maxSubscriptionsPerConnection: 2, maxFilterLength: 30, maxMessageBytes: 600 },
      offlineUsers,
    );
    try {
      const id = await ready();
      const code = () => (transport.messages(id).at(-1) as { id?: string; payload?: { extensions: { code: string } }[] }).payload?.[0]?.extensions.code;
      await subscribe(id, "long", POSTS, { q: "status = 'published' AND viewCount > 1" });
      expect(code()).toBe("FILTER_TOO_LONG");
      await subscribe(id, "large", POSTS, { q: "status = 'draft'", padding: "x".repeat(600) });
      expect(code()).toBe("MESSAGE_TOO_LARGE");
      expect(await subscribe(id, "a", POSTS, { q: "status = 'draft'" })).toEqual({});
      expect(await subscribe(id, "b", 'subscription { Post(slug: "alices-post") { slug } }')).toEqual({});
      await subscribe(id, "c", 'subscription { Post(slug: "alices-post") { slug } }');
      expect(transport.messages(id).at(-1)).toMatchObject({ id: "c", type: MessageType.Error });
      expect(code()).toBe("TOO_MANY_SUBSCRIPTIONS");
      expect((await realtime.store.subscriptionsOf(id)).map((row) => row.id).sort()).toEqual(["a", "b"]);
      expect(transport.disconnected).not.toContain(id);
      // A completed subscription frees its place.
      await send(id, { id: "a", type: MessageType.Complete });
      expect(await subscribe(id, "c", 'subscription { Post(slug: "alices-post") { slug } }')).toEqual({});
    } finally {
      realtime = roomy;
    }
  });

  it("authenticates through the connection_init payload only where the test-user seam is on", async () => {
    // A draft Bob may not read and a slug nobody has get the same answer: existence never leaks.
    const bob = await ready({ testUser: BOB });
    const before = transport.messages(bob).length;
    expect(await subscribe(bob, "d", 'subscription { Post(slug: "alices-draft") { slug } }')).toEqual({});
    expect(await subscribe(bob, "m", 'subscription { Post(slug: "no-such-post") { slug } }')).toEqual({});
    expect(transport.messages(bob).length).toBe(before);
    expect((await realtime.store.subscriptionsOf(bob)).map((row) => row.key)).toEqual(
      expect.arrayContaining([{ slug: "alices-draft" }, { slug: "no-such-post" }]),
    );
    const alice = await ready({ testUser: ALICE });
    expect(await subscribe(alice, "d", 'subscription { Post(slug: "alices-draft") { slug } }')).toEqual({});
    expect(await realtime.store.subscriptionsOf(alice)).toMatchObject([
      { userId: ALICE, kind: "record", topic: 'Post#["alices-draft"]', key: { slug: "alices-draft" } },
    ]);

    const deployed = realtimeFor(app, transport, await dynamoRepositories(), {}, connectionAuthenticator({ env: { ALLOW_TEST_USER: "true" } }));
    const connectionId = fresh();
    await deployed.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt: Date.now(), headers: { ...OFFERED, "x-test-user": ALICE }, cookies: [] });
    await deployed.protocol.message({
      connectionId,
      endpoint: ENDPOINT,
      body: JSON.stringify({ type: "connection_init", payload: { testUser: ALICE } }),
      receivedAt: Date.now(),
      requestId: "x",
    });
    expect((await deployed.store.getConnection(connectionId))?.userId).toBeUndefined();
  });

  it("takes the handshake's user, and closes with 4403 when a token cannot be verified", async () => {
    const connectionId = fresh();
    await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt: Date.now(), headers: { ...OFFERED, "x-test-user": ALICE }, cookies: [] });
    await send(connectionId, { type: MessageType.ConnectionInit });
    expect((await realtime.store.getConnection(connectionId))?.userId).toBe(ALICE);
    const tokened = await open();
    expect((await send(tokened, { type: MessageType.ConnectionInit, payload: { accessToken: "eyJ.x.y" } })).closed).toEqual({
      code: CloseCode.Forbidden,
      reason: "Forbidden",
    });
    const verified = realtimeFor(
      app,
      transport,
      await dynamoRepositories(),
      {},
      connectionAuthenticator({ verifyAccessToken: async (t) => (t === "good" ? BOB : Promise.reject(new Error("bad"))) }),
    );
    const ok = fresh();
    await verified.protocol.connect({ connectionId: ok, endpoint: ENDPOINT, connectedAt: Date.now(), headers: OFFERED, cookies: [] });
    await verified.protocol.message({
      connectionId: ok,
      endpoint: ENDPOINT,
      body: JSON.stringify({ type: "connection_init", payload: { authorization: "Bearer good" } }),
      receivedAt: Date.now(),
      requestId: "y",
    });
    expect((await verified.store.getConnection(ok))?.userId).toBe(BOB);
  });

  it("removes the connection and all its subscriptions on $disconnect", async () => {
    const id = await ready();
    await subscribe(id, "a", POSTS);
    await subscribe(id, "b", 'subscription { Post(slug: "alices-post") { slug } }');
    expect(await realtime.store.subscriptionsOf(id)).toHaveLength(2);
    await realtime.protocol.disconnect(id);
    expect(await realtime.store.subscriptionsOf(id)).toEqual([]);
    expect(await realtime.store.getConnection(id)).toBeUndefined();
  });

  it("removes the rows when posting to the connection finds it gone (410)", async () => {
    const id = await ready();
    await subscribe(id, "a", POSTS);
    transport.on(id, async () => {
      throw Object.assign(new Error("Gone"), { name: "GoneException", $metadata: { httpStatusCode: 410 } });
    });
    await send(id, { type: MessageType.Ping });
    expect(await realtime.store.getConnection(id)).toBeUndefined();
    expect(await realtime.store.subscriptionsOf(id)).toEqual([]);
  });
});
