import { GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType } from "graphql-ws";
import { describe, expect, inject, it } from "vitest";
import type { Realtime } from "../../lib/realtime/realtime.ts";
import type { RealtimeRepositories } from "../../lib/realtime/store.ts";
import { connectionShape, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { blog } from "../support/blog.ts";
import { dynamoRepositories, ENDPOINT, FakeTransport, realtimeFor, dynamoTableNames } from "./support.ts";

/**
 * The per-connection subscription limit under a burst: 60 subscribes sent at once on
 * one socket left 35 live for a limit of 25, because each counted the rows before any wrote. On
 * the old code this test finds more than 25 live subscriptions; with places taken by conditional
 * writes in DynamoDB Local exactly 25 live and every other subscribe gets its error.
 */
const POSTS = `subscription($q: String) { Posts(query: $q) { type key post { slug } } }`;
let counter = 0;

async function acknowledged(realtime: Realtime, transport: FakeTransport): Promise<string> {
  const connectionId = `burst-${process.pid}-${++counter}`;
  const headers = { "sec-websocket-protocol": GRAPHQL_TRANSPORT_WS_PROTOCOL };
  expect((await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt: Date.now(), headers, cookies: [] })).statusCode).toBe(200);
  await realtime.protocol.message({
    connectionId,
    endpoint: ENDPOINT,
    body: JSON.stringify({ type: MessageType.ConnectionInit }),
    receivedAt: Date.now(),
    requestId: "init",
  });
  expect(transport.messages(connectionId)).toEqual([{ type: MessageType.ConnectionAck }]);
  return connectionId;
}

function subscribeAll(realtime: Realtime, connectionId: string, ids: string[]) {
  return Promise.all(
    ids.map((id) =>
      realtime.protocol.message({
        connectionId,
        endpoint: ENDPOINT,
        receivedAt: Date.now(),
        requestId: `s-${id}`,
        body: JSON.stringify({ id, type: MessageType.Subscribe, payload: { query: POSTS, variables: { q: "status = 'published'" } } }),
      }),
    ),
  );
}

/**
 * The realtime tables through a client that counts every call it sends, failed ones included (a
 * failed conditional write is billed like any write): reads and writes apart.
 */
async function countedRepositories(): Promise<{ repositories: RealtimeRepositories; calls: { reads: number; writes: number }; reset(): void }> {
  await dynamoRepositories();
  const client = createDocumentClient(inject("dynamodbEndpoint"));
  const calls = { reads: 0, writes: 0 };
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = context.commandName ?? "";
      if (/^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(name)) calls.writes++;
      else calls.reads++;
      return next(args);
    },
    { step: "initialize", name: "countRealtimeCalls" },
  );
  const names = dynamoTableNames();
  return {
    repositories: {
      connections: new DynamoRepository(client, names.connections, connectionShape),
      subscriptions: new DynamoRepository(client, names.subscriptions, subscriptionShape),
      userConnections: new DynamoRepository(client, names.userConnections, userConnectionShape),
    },
    calls,
    reset: () => Object.assign(calls, { reads: 0, writes: 0 }),
  };
}

describe("refusals at the subscription limit are cheaper than admissions (DynamoDB Local)", () => {
  it("a subscribe refused at the limit costs one read (the frame's connection row) and no write", async () => {
    const transport = new FakeTransport();
    const counted = await countedRepositories();
    const realtime = realtimeFor(blog(), transport, counted.repositories, { maxSubscriptionsPerConnection: 2 });
    const connectionId = await acknowledged(realtime, transport);
    await subscribeAll(realtime, connectionId, ["a"]);
    await subscribeAll(realtime, connectionId, ["b"]);
    counted.reset();
    await subscribeAll(realtime, connectionId, ["refused"]);
    expect(transport.messages(connectionId).find((m) => m.id === "refused")).toMatchObject({
      type: MessageType.Error,
      payload: [{ extensions: { code: "TOO_MANY_SUBSCRIPTIONS", limit: 2 } }],
    });
    expect(counted.calls).toEqual({ reads: 1, writes: 0 });
    // An admission, for comparison: the connection row, the id's row, the place, the subscription.
    await realtime.protocol.message({
      connectionId,
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: "a", type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c",
    });
    counted.reset();
    await subscribeAll(realtime, connectionId, ["c"]);
    expect(counted.calls).toEqual({ reads: 2, writes: 2 });
  });

  it("answers every frame of a burst of 300 and admits exactly the limit, each refusal costing at most one write", async () => {
    const transport = new FakeTransport();
    const counted = await countedRepositories();
    const realtime = realtimeFor(blog(), transport, counted.repositories, { maxSubscriptionsPerConnection: 25 });
    const connectionId = await acknowledged(realtime, transport);
    counted.reset();
    const ids = Array.from({ length: 300 }, (_, i) => `b${i}`);
    const outcomes = await subscribeAll(realtime, connectionId, ids);
    expect(outcomes.every((outcome) => outcome.closed === undefined)).toBe(true);
    const live = (await realtime.store.subscriptionsOf(connectionId)).map((row) => row.id);
    expect(live).toHaveLength(25);
    const refused = transport
      .messages(connectionId)
      .filter((m) => m.type === MessageType.Error)
      .map((m) => m.id as string);
    expect(new Set(refused).size).toBe(275);
    expect([...live, ...refused].sort()).toEqual([...ids].sort());
    // Each admission writes its place and its row; each refusal at most one failed place write
    // (one that read a free place and lost the race for it), never a retry.
    expect(counted.calls.writes).toBeLessThanOrEqual(25 * 2 + 275);
    expect((await realtime.store.getConnection(connectionId))?.places).toBe(25);
  }, 120_000);
});

describe("subscriptions per connection under a burst (DynamoDB Local)", () => {
  it("admits exactly the limit of 60 sent at once, and answers every other one with one error", async () => {
    const transport = new FakeTransport();
    const realtime = realtimeFor(blog(), transport, await dynamoRepositories(), { maxSubscriptionsPerConnection: 25 });
    const connectionId = await acknowledged(realtime, transport);
    const ids = Array.from({ length: 60 }, (_, i) => `s${i}`);
    const outcomes = await subscribeAll(realtime, connectionId, ids);
    expect(outcomes.every((outcome) => outcome.closed === undefined)).toBe(true);
    const live = (await realtime.store.subscriptionsOf(connectionId)).map((row) => row.id);
    expect(live).toHaveLength(25);
    const errors = transport.messages(connectionId).filter((m) => m.type === MessageType.Error);
    const refused = errors.map((m) => m.id as string);
    // Each subscribe answered once: live, or refused with TOO_MANY_SUBSCRIPTIONS, never both, never neither.
    expect(new Set(refused).size).toBe(refused.length);
    expect([...live, ...refused].sort()).toEqual([...ids].sort());
    for (const error of errors) expect(error).toMatchObject({ payload: [{ extensions: { code: "TOO_MANY_SUBSCRIPTIONS", limit: 25 } }] });
    // Completing frees exactly one place, which the next subscribe takes; a burst after it gets one.
    await realtime.protocol.message({
      connectionId,
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: live[0], type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c",
    });
    await subscribeAll(realtime, connectionId, ["late-1", "late-2", "late-3"]);
    const after = (await realtime.store.subscriptionsOf(connectionId)).map((row) => row.id);
    expect(after).toHaveLength(25);
    expect(after.filter((id) => id.startsWith("late-"))).toHaveLength(1);
  }, 60_000);
});
