import { GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import type { Realtime } from "../../lib/realtime/realtime.ts";
import { blog } from "../support/blog.ts";
import { dynamoRepositories, ENDPOINT, FakeTransport, realtimeFor } from "./support.ts";

/**
 * The per-connection subscription limit under a burst (issue 27): 60 subscribes sent at once on
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
  await realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify({ type: MessageType.ConnectionInit }), receivedAt: Date.now(), requestId: "init" });
  expect(transport.messages(connectionId)).toEqual([{ type: MessageType.ConnectionAck }]);
  return connectionId;
}

function subscribeAll(realtime: Realtime, connectionId: string, ids: string[]) {
  return Promise.all(ids.map((id) => realtime.protocol.message({
    connectionId, endpoint: ENDPOINT, receivedAt: Date.now(), requestId: `s-${id}`,
    body: JSON.stringify({ id, type: MessageType.Subscribe, payload: { query: POSTS, variables: { q: "status = 'published'" } } }),
  })));
}

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
    await realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify({ id: live[0], type: MessageType.Complete }), receivedAt: Date.now(), requestId: "c" });
    await subscribeAll(realtime, connectionId, ["late-1", "late-2", "late-3"]);
    const after = (await realtime.store.subscriptionsOf(connectionId)).map((row) => row.id);
    expect(after).toHaveLength(25);
    expect(after.filter((id) => id.startsWith("late-"))).toHaveLength(1);
  }, 60_000);
});
