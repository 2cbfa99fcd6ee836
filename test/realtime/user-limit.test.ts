import { randomUUID } from "node:crypto";
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { DEFAULT_REALTIME_OPTIONS, realtimeOptions, type RealtimeOptions } from "../../lib/realtime/options.ts";
import type { Realtime } from "../../lib/realtime/realtime.ts";
import type { RealtimeRepositories } from "../../lib/realtime/store.ts";
import { blog } from "../support/blog.ts";
import { apiError, dynamoRepositories, ENDPOINT, FakeTransport, memoryRepositories, realtimeFor } from "./support.ts";

/**
 * Connections per signed-in user (WS_MAX_CONNECTIONS_PER_USER), on DynamoDB Local through the real
 * SDK; the management API is the one fake, for 410s. Each test has users of its own.
 */
const app = blog();
const offlineUsers = connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } });
const OFFERED = { "sec-websocket-protocol": GRAPHQL_TRANSPORT_WS_PROTOCOL };
let counter = 0;

interface Setup {
  realtime: Realtime;
  transport: FakeTransport;
  repositories: RealtimeRepositories;
  /** $connect then connection_init as `user` (anonymous when undefined); what the protocol answered. */
  open: (user?: string) => Promise<{ id: string; closed?: { code: number; reason: string } }>;
  acknowledged: (id: string) => boolean;
  places: (user: string) => Promise<string[]>;
}

async function setup(options: Partial<RealtimeOptions>, repositories?: RealtimeRepositories, now?: () => number): Promise<Setup> {
  const repos = repositories ?? (await dynamoRepositories());
  const transport = new FakeTransport();
  const realtime = realtimeFor(app, transport, repos, options, offlineUsers, now);
  const acknowledged = (id: string) => transport.messages(id).some((m) => m.type === MessageType.ConnectionAck);
  const open = async (user?: string) => {
    const id = `limit-${process.pid}-${++counter}`;
    const connectedAt = now?.() ?? Date.now();
    await realtime.protocol.connect({ connectionId: id, endpoint: ENDPOINT, connectedAt, headers: OFFERED, cookies: [] });
    const body = JSON.stringify({ type: MessageType.ConnectionInit, ...(user ? { payload: { testUser: user } } : {}) });
    const outcome = await realtime.protocol.message({ connectionId: id, endpoint: ENDPOINT, body, receivedAt: connectedAt, requestId: id });
    return { id, ...outcome };
  };
  const places = async (user: string) => (await realtime.store.userPlaces.read(user)).places.map((p) => p.connectionId).sort();
  return { realtime, transport, repositories: repos, open, acknowledged, places };
}

describe("connections per user", () => {
  it("refuses the connection_init over the limit with 4403 and keeps nothing of it; others are unaffected", async () => {
    const s = await setup({ maxConnectionsPerUser: 2 });
    const alice = randomUUID();
    const bob = randomUUID();
    const first = await s.open(alice);
    const second = await s.open(alice);
    expect([s.acknowledged(first.id), s.acknowledged(second.id)]).toEqual([true, true]);
    const third = await s.open(alice);
    expect(third.closed).toEqual({ code: CloseCode.Forbidden, reason: "Too many connections: this user holds 2, at most 2 are allowed" });
    expect(s.acknowledged(third.id)).toBe(false);
    expect(s.transport.disconnected).toContain(third.id);
    expect(await s.realtime.store.getConnection(third.id)).toBeUndefined();
    expect(await s.places(alice)).toEqual([first.id, second.id].sort());
    // The two live sockets were probed (a graphql-ws ping) before the refusal, and kept.
    expect(s.transport.messages(first.id).at(-1)).toEqual({ type: MessageType.Ping });
    expect(await s.realtime.store.getConnection(first.id)).toMatchObject({ state: "acknowledged", userId: alice });

    // Another user and anonymous connections are not counted against Alice.
    expect(s.acknowledged((await s.open(bob)).id)).toBe(true);
    const anonymous = await Promise.all([1, 2, 3, 4].map(() => s.open()));
    expect(anonymous.map((a) => s.acknowledged(a.id))).toEqual([true, true, true, true]);
  });

  it("frees a place on $disconnect, on a protocol close and when a post finds the socket gone (410)", async () => {
    const s = await setup({ maxConnectionsPerUser: 1 });
    const alice = randomUUID();
    const first = await s.open(alice);
    expect((await s.open(alice)).closed?.code).toBe(CloseCode.Forbidden);
    await s.realtime.protocol.disconnect(first.id);
    expect(await s.places(alice)).toEqual([]);

    const second = await s.open(alice);
    expect(s.acknowledged(second.id)).toBe(true);
    // A frame graphql-ws closes the socket for (4400): the close frees the place too.
    expect(
      (await s.realtime.protocol.message({ connectionId: second.id, endpoint: ENDPOINT, body: "{", receivedAt: Date.now(), requestId: "x" })).closed?.code,
    ).toBe(CloseCode.BadRequest);
    expect(await s.places(alice)).toEqual([]);

    const third = await s.open(alice);
    expect(s.acknowledged(third.id)).toBe(true);
    s.transport.on(third.id, async () => {
      throw apiError("GoneException", 410);
    });
    await s.realtime.protocol.message({
      connectionId: third.id,
      endpoint: ENDPOINT,
      body: JSON.stringify({ type: MessageType.Ping }),
      receivedAt: Date.now(),
      requestId: "y",
    });
    expect(await s.places(alice)).toEqual([]);
    expect(s.acknowledged((await s.open(alice)).id)).toBe(true);
  });

  it("reclaims the place of a socket whose $disconnect never came, but never a live one's", async () => {
    const s = await setup({ maxConnectionsPerUser: 2 });
    const alice = randomUUID();
    const dead = await s.open(alice);
    const live = await s.open(alice);
    // The socket went away and $disconnect was lost: API Gateway answers 410 for it.
    s.transport.on(dead.id, async () => {
      throw apiError("GoneException", 410);
    });
    const next = await s.open(alice);
    expect(s.acknowledged(next.id)).toBe(true);
    expect(await s.places(alice)).toEqual([live.id, next.id].sort());
    expect(await s.realtime.store.getConnection(dead.id)).toBeUndefined();
    expect((await s.open(alice)).closed?.code).toBe(CloseCode.Forbidden);

    // A place whose connection row is gone (a $disconnect that stopped half-way) is reclaimed too.
    await s.repositories.connections.delete({ connectionId: live.id });
    expect(s.acknowledged((await s.open(alice)).id)).toBe(true);
    expect(await s.places(alice)).not.toContain(live.id);
  });

  it("admits exactly the limit from a burst of connection_inits, and keeps a place for each acknowledged socket only", async () => {
    const s = await setup({ maxConnectionsPerUser: 3 });
    const alice = randomUUID();
    const burst = await Promise.all(Array.from({ length: 12 }, () => s.open(alice)));
    const admitted = burst.filter((b) => s.acknowledged(b.id)).map((b) => b.id);
    expect(admitted).toHaveLength(3);
    expect(await s.places(alice)).toEqual(admitted.sort());
    for (const refused of burst.filter((b) => !s.acknowledged(b.id))) expect(refused.closed?.code).toBe(CloseCode.Forbidden);
    // Closing one frees exactly one place, which a second burst fills once.
    await s.realtime.protocol.disconnect(admitted[0] as string);
    const wave = await Promise.all(Array.from({ length: 6 }, () => s.open(alice)));
    expect(wave.filter((w) => s.acknowledged(w.id))).toHaveLength(1);
    expect(await s.places(alice)).toHaveLength(3);
  });

  it("releases every place of a burst of disconnects racing admissions, losing none and keeping none", async () => {
    const s = await setup({ maxConnectionsPerUser: 4 });
    const alice = randomUUID();
    const first = await Promise.all(Array.from({ length: 4 }, () => s.open(alice)));
    expect(first.every((f) => s.acknowledged(f.id))).toBe(true);
    const [left, arrived] = await Promise.all([
      Promise.all(first.slice(0, 3).map((f) => s.realtime.protocol.disconnect(f.id))),
      Promise.all(Array.from({ length: 6 }, () => s.open(alice))),
    ]);
    expect(left).toHaveLength(3);
    const admitted = arrived.filter((a) => s.acknowledged(a.id)).map((a) => a.id);
    // Whatever the interleaving: the one that stayed, plus the newcomers that got in, and no more than 4.
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(admitted.length).toBeLessThanOrEqual(3);
    expect(await s.places(alice)).toEqual([first[3]?.id as string, ...admitted].sort());
  });

  it("gives a place the connection's TTL, and a place past it no longer counts", async () => {
    const clock = { now: Date.now() };
    const s = await setup({ maxConnectionsPerUser: 1 }, memoryRepositories(), () => clock.now);
    const alice = randomUUID();
    const first = await s.open(alice);
    const [place] = (await s.realtime.store.userPlaces.read(alice)).places;
    expect(place?.expiresAt).toBe((await s.realtime.store.getConnection(first.id))?.expiresAt);
    expect((await s.open(alice)).closed?.code).toBe(CloseCode.Forbidden);
    // API Gateway ended the socket at its 2-hour limit and nothing else was heard of it.
    clock.now += DEFAULT_REALTIME_OPTIONS.connectionLifetimeMs + DEFAULT_REALTIME_OPTIONS.ttlMarginMs + 1_000;
    expect(s.acknowledged((await s.open(alice)).id)).toBe(true);
  });

  it("is a service option with a default, set by WS_MAX_CONNECTIONS_PER_USER", () => {
    expect(DEFAULT_REALTIME_OPTIONS.maxConnectionsPerUser).toBe(10);
    expect(realtimeOptions({ WS_MAX_CONNECTIONS_PER_USER: "3" }).maxConnectionsPerUser).toBe(3);
    expect(() => realtimeOptions({ WS_MAX_CONNECTIONS_PER_USER: "0" })).toThrow("WS_MAX_CONNECTIONS_PER_USER must be a positive integer");
  });
});
