import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { SQSEvent } from "aws-lambda";
import { MessageType } from "graphql-ws";
import { describe, expect, inject, it, vi } from "vitest";
import type { LifecycleEvent } from "../../lib/core/events.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { inRange, lowerBound, MAX_SHARES, sharesFor, upperBound } from "../../lib/realtime/connection-ranges.ts";
import { fanoutWorkerHandler } from "../../lib/realtime/fanout-handler.ts";
import { DEFAULT_FANOUT_OPTIONS } from "../../lib/realtime/fanout-options.ts";
import type { QueuedMessage } from "../../lib/realtime/fanout-queue.ts";
import { InProcessFanoutQueue } from "../../lib/realtime/local-queue.ts";
import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import { createRealtime, type Realtime } from "../../lib/realtime/realtime.ts";
import { packed } from "../../lib/realtime/sqs-queue.ts";
import { deliverStreamEvent } from "../../lib/realtime/stream-dispatch.ts";
import { connectionShape, realtimeTableNames, realtimeTables, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { bucketOf, slotKey } from "../../lib/realtime/topic-packs.ts";
import { dynamoPackTable } from "../../lib/realtime/pack-table.ts";
import { DeleteCommand, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { apiError, ENDPOINT, FakeTransport, memoryRepositories, subscribeOver } from "./support.ts";
import { streamRealtime } from "../../lib/realtime/fanout-env.ts";

const users = connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } });
const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key post { slug status title } } }`;
const DRAFTS = `subscription { Posts(query: "status = 'draft'") { type key post { slug status title } } }`;
/** Connection ids spread over API Gateway's base64 alphabet, so every share has subscribers. */
const ALPHABET = "+/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const connection = (i: number) => `${ALPHABET[(i * 37) % 64]}${ALPHABET[i % 64]}conn${i}`;

let tablesMade = 0;

interface Sharded {
  realtime: Realtime;
  transport: FakeTransport;
  queue: InProcessFanoutQueue;
  /** DynamoDB calls by command name, since the last reset. */
  calls: Map<string, number>;
  client: ReturnType<typeof createDocumentClient>;
  table: string;
}

/** The stream path with the in-process queue, over fresh realtime tables in DynamoDB Local. */
async function sharded(transport = new FakeTransport(), perShare = 4): Promise<Sharded> {
  const endpoint = inject("dynamodbEndpoint");
  const prefix = `sharded-${process.pid}-${++tablesMade}-`;
  const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  try {
    await ensureTables(admin, realtimeTables(prefix));
  } finally {
    admin.destroy();
  }
  const client = createDocumentClient(endpoint);
  const calls = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = context.commandName ?? "";
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: "initialize", name: "countShardedCalls" },
  );
  const names = realtimeTableNames(prefix);
  const subscriptions = new DynamoRepository(client, names.subscriptions, subscriptionShape);
  // A retried share waits its visibility timeout, shortened here from the template's six minutes.
  const queue = new InProcessFanoutQueue({ workers: 8, maxReceives: 3, visibilityTimeoutMs: 20 });
  const realtime = createRealtime(blog(), {
    repositories: {
      connections: new DynamoRepository(client, names.connections, connectionShape),
      subscriptions,
      userConnections: new DynamoRepository(client, names.userConnections, userConnectionShape),
      topicMarkers: subscriptions,
      topicPacks: dynamoPackTable(client, names.subscriptions),
    },
    transport,
    auth: users,
    options: { ...DEFAULT_REALTIME_OPTIONS, maxConnectionsPerUser: 100 },
    fanoutQueue: queue,
    fanoutOptions: { ...DEFAULT_FANOUT_OPTIONS, subscribersPerShare: perShare },
  });
  queue.attach(fanoutWorkerHandler(async () => realtime));
  return { realtime, transport, queue, calls, client, table: names.subscriptions };
}

async function subscribe(realtime: Realtime, connectionId: string, query: string, id = "s"): Promise<void> {
  await subscribeOver(realtime, connectionId, query, { id });
}

function event(kind: "Created" | "Updated", slug: string, title = "t"): LifecycleEvent {
  const record = { ...post(slug), title, author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 };
  return { name: `Post.${kind}`, model: "Post", kind, key: { slug }, record, ...(kind === "Updated" ? { previous: record } : {}) };
}

/** The `type` of every `next` a connection received, in order. */
function types(transport: FakeTransport, connectionId: string): string[] {
  return transport
    .messages(connectionId)
    .filter((m) => m.type === MessageType.Next)
    .map((m) => (m.payload as { data: { Posts: { type: string } } }).data.Posts.type);
}

describe("connection ranges", () => {
  it("put every id in exactly one share at every split, and split by powers of two up to the cap", () => {
    const ids = ["", "+", "+a", "/z", "0", "9zz", "A", "Zz", "a", "z", "zzzz", "~", "\u00e9", ...Array.from({ length: 200 }, (_, i) => connection(i))];
    for (let of = 1; of <= MAX_SHARES; of *= 2) {
      for (const id of ids) expect(Array.from({ length: of }, (_, index) => inRange({ index, of }, id)).filter(Boolean)).toHaveLength(1);
    }
    expect(lowerBound({ index: 1, of: 2 })).toBe("U");
    expect(upperBound({ index: 1, of: 2 })).toBeUndefined();
    expect([0, 1, 1000, 1001, 4000, 4001, 100_000, 10_000_000].map((n) => sharesFor(n, 1000, 64))).toEqual([1, 1, 1, 2, 4, 8, 64, 64]);
    expect(sharesFor(100_000, 1000, 100)).toBe(64);
    expect(sharesFor(100_000, 1000, 20)).toBe(16);
  });

  it("pack SendMessageBatch calls of at most 10 entries and 256 KiB", () => {
    const message = (bytes: number, i: number): QueuedMessage => ({ groupId: `g${i}`, deduplicationId: `d${i}`, body: "x".repeat(bytes) });
    expect(packed(Array.from({ length: 25 }, (_, i) => message(10, i))).map((b) => b.length)).toEqual([10, 10, 5]);
    const large = packed(Array.from({ length: 5 }, (_, i) => message(100 * 1024, i)));
    expect(large.map((b) => b.length)).toEqual([2, 2, 1]);
  });
});

describe("the in-process fan-out queue", () => {
  it("hands a failed message back only once its visibility timeout has passed, its group waiting meanwhile", async () => {
    vi.useFakeTimers();
    try {
      const queue = new InProcessFanoutQueue({ workers: 4, maxReceives: 3, visibilityTimeoutMs: 1_000 });
      const received: string[] = [];
      let failFirst = true;
      queue.attach(async (batch: SQSEvent) => {
        const body = batch.Records[0]?.body ?? "";
        received.push(body);
        if (body === "a1" && failFirst) {
          failFirst = false;
          return { batchItemFailures: [{ itemIdentifier: batch.Records[0]?.messageId ?? "" }] };
        }
        return { batchItemFailures: [] };
      });
      await queue.send([
        { groupId: "a", deduplicationId: "1", body: "a1" },
        { groupId: "a", deduplicationId: "2", body: "a2" },
        { groupId: "b", deduplicationId: "3", body: "b1" },
      ]);
      await vi.advanceTimersByTimeAsync(999);
      // The other group went on; the failed message's group holds its later message back.
      expect(received).toEqual(["a1", "b1"]);
      await vi.advanceTimersByTimeAsync(1);
      await queue.settled();
      expect(received).toEqual(["a1", "b1", "a1", "a2"]);
      expect(queue.deadLetters).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("sharded fan-out through the queue (DynamoDB Local)", () => {
  it("plans shares from the topic's marker and delivers each subscriber once, filter checked per subscriber", async () => {
    const s = await sharded();
    const matching = Array.from({ length: 12 }, (_, i) => connection(i));
    const drafts = Array.from({ length: 4 }, (_, i) => connection(100 + i));
    for (const id of matching) await subscribe(s.realtime, id, PUBLISHED);
    for (const id of drafts) await subscribe(s.realtime, id, DRAFTS);
    expect((await s.realtime.store.markers?.read(["Post"]))?.get("Post")?.count).toBe(16);
    const report = await deliverStreamEvent(s.realtime, event("Created", "p1"), "000100");
    expect(report.subscriptions).toBe(16);
    // 16 subscriptions at 4 a share: 4 shares, so 4 worker invocations; the record topic has none.
    expect(s.queue.invocations).toBe(4);
    for (const id of matching) expect(types(s.transport, id)).toEqual(["CREATED"]);
    for (const id of drafts) expect(types(s.transport, id)).toEqual([]);
  });

  it("keeps a subscriber's events of one record in stream order when a share is retried, and bounds the duplicates", async () => {
    // Posts take 0-15 ms at random, so without the groups' order a later event could overtake.
    const transport = new FakeTransport();
    const s = await sharded(transport);
    const ids = Array.from({ length: 16 }, (_, i) => connection(i));
    for (const id of ids) {
      transport.on(id, () => new Promise((resolve) => setTimeout(resolve, Math.random() * 15)));
      await subscribe(s.realtime, id, PUBLISHED);
    }
    const worker = fanoutWorkerHandler(async () => s.realtime);
    // The first share of the first event is delivered, then its worker "times out" (fails after
    // posting) twice: SQS would hand it back, and it must be redone before that share's next event.
    let failuresLeft = 2;
    s.queue.attach(async (batch: SQSEvent) => {
      const response = await worker(batch);
      const body = JSON.parse(batch.Records[0]?.body ?? "{}") as { sequence?: string; range?: { index: number } };
      if (body.sequence === "000100" && body.range?.index === 0 && failuresLeft > 0) {
        failuresLeft--;
        return { batchItemFailures: [{ itemIdentifier: batch.Records[0]?.messageId ?? "" }] };
      }
      return response;
    });
    const planner = s.realtime.planner;
    if (!planner) throw new Error("no planner");
    // The stream hands both records over before either is delivered.
    await planner.plan(event("Created", "p2"), "000100");
    await planner.plan(event("Updated", "p2", "second"), "000200");
    await planner.plan(event("Updated", "p2", "third"), "000300");
    await planner.settled();
    const retried = ids.filter((id) => inRange({ index: 0, of: 4 }, id));
    expect(retried.length).toBeGreaterThan(0);
    for (const id of ids) {
      const seen = types(transport, id);
      // Each event at least once, the retried share's first event at most 1 + 2 retries times,
      // and never an earlier event after a later one.
      const copies = retried.includes(id) ? 3 : 1;
      expect(seen).toEqual([...Array<string>(copies).fill("CREATED"), "UPDATED", "UPDATED"]);
      const titles = transport
        .messages(id)
        .filter((m) => m.type === MessageType.Next)
        .map((m) => (m.payload as { data: { Posts: { post: { title: string } } } }).data.Posts.post.title);
      expect(titles.slice(-2)).toEqual(["second", "third"]);
    }
    expect(s.queue.deadLetters).toHaveLength(0);
  });

  it("drops a share re-sent for the same stream record (a retried stream batch)", async () => {
    const s = await sharded();
    for (let i = 0; i < 6; i++) await subscribe(s.realtime, connection(i), PUBLISHED);
    await deliverStreamEvent(s.realtime, event("Created", "p3"), "000400");
    await deliverStreamEvent(s.realtime, event("Created", "p3"), "000400");
    for (let i = 0; i < 6; i++) expect(types(s.transport, connection(i))).toEqual(["CREATED"]);
  });

  it("reads a share's subscribers from the topic's packs, never its index, with the newest subscriber in and a completed one out", async () => {
    const s = await sharded(new FakeTransport(), 1000);
    for (let i = 0; i < 30; i++) await subscribe(s.realtime, connection(i), PUBLISHED);
    s.calls.clear();
    await deliverStreamEvent(s.realtime, event("Created", "p4"), "000500");
    // The planner's marker read, the worker's one Query of the pack partition (and the document, once per instance).
    expect(s.calls.get("QueryCommand")).toBe(1);
    for (let i = 0; i < 30; i++) expect(types(s.transport, connection(i))).toEqual(["CREATED"]);
    await subscribe(s.realtime, connection(30), PUBLISHED);
    await s.realtime.protocol.message({
      connectionId: connection(0),
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: "s", type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c0",
    });
    s.calls.clear();
    await deliverStreamEvent(s.realtime, event("Updated", "p4"), "000600");
    expect(s.calls.get("BatchGetCommand") ?? 0).toBe(0);
    expect(types(s.transport, connection(30))).toEqual(["UPDATED"]);
    expect(types(s.transport, connection(0))).toEqual(["CREATED"]);
    expect(types(s.transport, connection(1))).toEqual(["CREATED", "UPDATED"]);
  });

  it("packs a subscriber into tens of bytes whatever its document's size, the document once per topic", async () => {
    const s = await sharded();
    // A document of 1.5 KB (a comment stands for a long selection), as today's rows each repeat.
    const long = `${PUBLISHED}\n# ${"x".repeat(1500)}`;
    for (let i = 0; i < 20; i++) await subscribe(s.realtime, `Ab${i}conn`, long);
    const pack =
      (await s.client.send(new GetCommand({ TableName: s.table, Key: { connectionId: "\u0000pack:Post", id: slotKey(bucketOf("Ab0conn", 1), 0) } }))).Item ??
      {};
    const entries = Object.entries(pack).filter(([name]) => name.includes(" "));
    expect(entries).toHaveLength(20);
    for (const [name, value] of entries) expect(name.length + String(value).length).toBeLessThan(40);
    const documents = await s.client.send(
      new QueryCommand({ TableName: s.table, KeyConditionExpression: "connectionId = :p", ExpressionAttributeValues: { ":p": "\u0000doc:Post" } }),
    );
    expect(documents.Items).toHaveLength(1);
    await deliverStreamEvent(s.realtime, event("Created", "p6"), "000650");
    for (let i = 0; i < 20; i++) expect(types(s.transport, `Ab${i}conn`)).toEqual(["CREATED"]);
  });

  it("drops a gone connection's entries from the packs even when its rows have already expired away", async () => {
    const s = await sharded();
    await subscribe(s.realtime, connection(1), PUBLISHED);
    await subscribe(s.realtime, connection(2), PUBLISHED);
    // DynamoDB's TTL sweep deletes rows without the service: the pack entry is all that is left.
    await s.client.send(new DeleteCommand({ TableName: s.table, Key: { connectionId: connection(2), id: "s" } }));
    s.transport.on(connection(2), () => Promise.reject(apiError("GoneException", 410)));
    await deliverStreamEvent(s.realtime, event("Created", "p7"), "000750");
    const pack =
      (await s.client.send(new GetCommand({ TableName: s.table, Key: { connectionId: "\u0000pack:Post", id: slotKey(bucketOf(connection(2), 1), 0) } })))
        .Item ?? {};
    expect(Object.keys(pack).filter((name) => name.startsWith(`${connection(2)} `))).toEqual([]);
    const attempts = s.transport.attempts;
    await deliverStreamEvent(s.realtime, event("Created", "p8"), "000760");
    expect(types(s.transport, connection(1))).toEqual(["CREATED", "CREATED"]);
    // One post, to the live subscriber: the second event found no entry for the gone connection.
    expect(s.transport.attempts - attempts).toBe(1);
  });

  it("counts a topic's subscriptions in and out: complete, disconnect", async () => {
    const s = await sharded();
    await subscribe(s.realtime, connection(1), PUBLISHED);
    await subscribe(s.realtime, connection(2), PUBLISHED);
    await subscribe(s.realtime, connection(3), PUBLISHED);
    // A second subscription on another connection's partition, then completed: out again.
    await subscribe(s.realtime, connection(4), PUBLISHED, "other");
    await s.realtime.protocol.message({
      connectionId: connection(4),
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: "other", type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c4",
    });
    await s.realtime.protocol.message({
      connectionId: connection(1),
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: "s", type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c",
    });
    await s.realtime.protocol.disconnect(connection(2));
    expect((await s.realtime.store.markers?.read(["Post"]))?.get("Post")?.count).toBe(1);
    await deliverStreamEvent(s.realtime, event("Created", "p5"), "000800");
    expect(types(s.transport, connection(3))).toEqual(["CREATED"]);
    expect(types(s.transport, connection(1))).toEqual([]);
  });
});

describe("the stream function's fan-out path by environment", () => {
  const parts = () => ({ repositories: memoryRepositories(), transport: new FakeTransport(), auth: users });
  it("plans into the in-process queue under npm start, even with the template's queue variable present", async () => {
    const transport = new FakeTransport();
    const realtime = await streamRealtime(blog(), { ...parts(), transport }, { IS_OFFLINE: "true", FANOUT_QUEUE_URL: "[object Object]" })();
    expect(realtime.planner).toBeDefined();
    await realtime.protocol.connect({
      connectionId: "Aoffline",
      endpoint: ENDPOINT,
      connectedAt: Date.now(),
      headers: { "sec-websocket-protocol": "graphql-transport-ws" },
      cookies: [],
    });
    await realtime.protocol.message({
      connectionId: "Aoffline",
      endpoint: ENDPOINT,
      body: JSON.stringify({ type: MessageType.ConnectionInit }),
      receivedAt: Date.now(),
      requestId: "i",
    });
    await realtime.protocol.message({
      connectionId: "Aoffline",
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: "s", type: MessageType.Subscribe, payload: { query: PUBLISHED } }),
      receivedAt: Date.now(),
      requestId: "s",
    });
    const report = await deliverStreamEvent(realtime, event("Created", "off"), "000900");
    // Delivered by the worker through the queue: the stream's own report counts no delivery.
    expect(report.delivered).toBe(0);
    expect(types(transport, "Aoffline")).toEqual(["CREATED"]);
    // A share that fails once (its read) is handed to the worker again after npm start's short
    // visibility timeout, not the template's six minutes: the stream function waits on it (it works
    // the shares off before its next record), so a late retry would hold every later event back.
    const read = realtime.store.subscriptionShare.bind(realtime.store);
    let failures = 0;
    vi.spyOn(realtime.store, "subscriptionShare").mockImplementation((...args) => {
      if (failures++ === 0) throw new Error("a read that failed once");
      return read(...args);
    });
    await deliverStreamEvent(realtime, event("Updated", "off"), "000901");
    // Both topics' shares are read (the in-memory store keeps no markers), the failed one twice.
    expect(failures).toBe(3);
    expect(types(transport, "Aoffline")).toEqual(["CREATED", "UPDATED"]);
    vi.restoreAllMocks();
  });

  it("plans into SQS when deployed with a queue, and delivers in the stream function without one", async () => {
    expect((await streamRealtime(blog(), parts(), { FANOUT_QUEUE_URL: "https://sqs.us-east-1.amazonaws.com/000000000000/q.fifo" })()).planner).toBeDefined();
    expect((await streamRealtime(blog(), parts(), {})()).planner).toBeUndefined();
  });
});
