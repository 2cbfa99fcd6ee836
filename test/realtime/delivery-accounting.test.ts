import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { MessageType } from "graphql-ws";
import { describe, expect, inject, it } from "vitest";
import type { LifecycleEvent } from "../../lib/core/events.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { dropped, emptyReport, type DeliveryReport } from "../../lib/realtime/delivery-report.ts";
import { DEFAULT_FANOUT_OPTIONS } from "../../lib/realtime/fanout-options.ts";
import { deliverShares } from "../../lib/realtime/fanout-worker.ts";
import { InProcessFanoutQueue } from "../../lib/realtime/local-queue.ts";
import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import { dynamoPackTable } from "../../lib/realtime/pack-table.ts";
import { createRealtime } from "../../lib/realtime/realtime.ts";
import { deliverStreamEvent } from "../../lib/realtime/stream-dispatch.ts";
import { connectionShape, realtimeTableNames, realtimeTables, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { apiError, FakeTransport, subscribeOver } from "./support.ts";

/**
 * Deliveries you can account for (issue 54): hundreds of writes through the stream function's path
 * (plan into shares, the in-process fan-out queue, the worker) over DynamoDB Local, to subscribers
 * spread over several shares, with the management API throttling some posts. Every event reaches
 * every subscriber once; the workers' reports account for every frame (planned = sent + dropped,
 * retries = the throttled posts); the latency from each write to each delivery is printed, not
 * asserted.
 */
const WRITES = 200;
const SUBSCRIBERS = 16;
const ALPHABET = "+/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key post { slug } } }`;

/** Fresh realtime tables under `prefix` in DynamoDB Local, and repositories over them. */
async function tables(prefix: string) {
  const endpoint = inject("dynamodbEndpoint");
  const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  try {
    await ensureTables(admin, realtimeTables(prefix));
  } finally {
    admin.destroy();
  }
  const client = createDocumentClient(endpoint);
  const names = realtimeTableNames(prefix);
  return {
    client,
    repositories: {
      connections: new DynamoRepository(client, names.connections, connectionShape),
      subscriptions: new DynamoRepository(client, names.subscriptions, subscriptionShape),
      userConnections: new DynamoRepository(client, names.userConnections, userConnectionShape),
    },
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

describe("deliveries accounted, over the sharded path and DynamoDB Local", () => {
  it(`delivers each of ${WRITES} writes to each of ${SUBSCRIBERS} subscribers once, every frame accounted, throttled posts retried`, async () => {
    const { client, repositories } = await tables(`accounted-${process.pid}-`);
    const names = realtimeTableNames(`accounted-${process.pid}-`);
    const transport = new FakeTransport();
    const queue = new InProcessFanoutQueue({ workers: 8, maxReceives: 3, visibilityTimeoutMs: 20 });
    const realtime = createRealtime(blog(), {
      repositories: { ...repositories, topicMarkers: repositories.subscriptions, topicPacks: dynamoPackTable(client, names.subscriptions) },
      transport,
      auth: connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } }),
      // The posts are in-process: a timeout would measure this machine's load, not a delivery.
      // Nor may the init timeout (3 s from connect to connection_init) measure it: a first connect
      // on fresh tables of a loaded machine took longer, and its socket was closed (4408) before subscribing.
      options: { ...DEFAULT_REALTIME_OPTIONS, retryBaseMs: 1, postTimeoutMs: 60_000, initTimeoutMs: 60_000 },
      fanoutQueue: queue,
      // Four subscribers a share: the topic's 16 are delivered by four workers' shares.
      fanoutOptions: { ...DEFAULT_FANOUT_OPTIONS, subscribersPerShare: 4 },
    });
    // The worker's own code, its reports summed here (the handler adds them to its metrics).
    const total: DeliveryReport = emptyReport();
    queue.attach(async (event) => {
      const { response, report } = await deliverShares(realtime, event);
      for (const field of Object.keys(report) as (keyof DeliveryReport)[])
        total[field] = field === "ageMs" ? Math.max(total[field], report[field]) : total[field] + report[field];
      return response;
    });

    const connections = Array.from({ length: SUBSCRIBERS }, (_, i) => `${ALPHABET[(i * 37) % 64]}${ALPHABET[(i * 11) % 64]}acct${i}`);
    for (const connectionId of connections) await subscribeOver(realtime, connectionId, PUBLISHED, { id: "s" });
    // Every subscribe accepted (acknowledged, no error, its row stored) and in its topic's shares.
    const inShares: string[] = [];
    for (let index = 0; index < 4; index++)
      for await (const page of realtime.store.subscriptionShare("Post", { index, of: 4 }, { first: 100, largest: 200 }))
        inShares.push(...page.map((r) => r.connectionId));
    for (const connectionId of connections) {
      const rows = (await realtime.store.subscriptionsOf(connectionId)).map((row) => row.id);
      expect({ connectionId, messages: transport.messages(connectionId), rows, inShares: inShares.includes(connectionId) }).toEqual({
        connectionId,
        messages: [{ type: MessageType.ConnectionAck }],
        rows: ["s"],
        inShares: true,
      });
    }

    // When each write was made, and when each (subscriber, write) was delivered; one post in
    // twenty is throttled once (the fan-out retries it).
    const writtenAt = new Map<string, number>();
    const latencies: number[] = [];
    const received = new Map<string, number>();
    const seenFrames = new Set<string>();
    let throttled = 0;
    for (const connectionId of connections)
      transport.on(connectionId, async (_target, data) => {
        const frame = JSON.parse(data) as { type: string; payload?: { data?: { Posts?: { key?: { slug?: string } } } } };
        const slug = frame.payload?.data?.Posts?.key?.slug;
        if (frame.type !== MessageType.Next || slug === undefined) return;
        const key = `${connectionId} ${slug}`;
        if (!seenFrames.has(key) && seenFrames.size % 20 === 7) {
          seenFrames.add(key);
          throttled++;
          throw apiError("LimitExceededException", 429);
        }
        seenFrames.add(key);
        received.set(key, (received.get(key) ?? 0) + 1);
        latencies.push(Date.now() - (writtenAt.get(slug) ?? Date.now()));
      });

    // The stream function's path, one record at a time (npm start works each record's shares off before the next).
    for (let i = 0; i < WRITES; i++) {
      const slug = `acct-${process.pid}-${i}`;
      const record = { ...post(slug), author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 };
      const event: LifecycleEvent = { name: "Post.Created", model: "Post", kind: "Created", key: { slug }, record };
      writtenAt.set(slug, Date.now());
      await deliverStreamEvent(realtime, event, String(10_000 + i), writtenAt.get(slug));
    }
    await queue.settled();

    const sorted = [...latencies].sort((a, b) => a - b);
    console.info(
      `deliveries: ${sorted.length}; latency from write to post (ms): p50 ${quantile(sorted, 0.5)}, p90 ${quantile(sorted, 0.9)}, ` +
        `p99 ${quantile(sorted, 0.99)}, max ${sorted.at(-1) ?? 0}; report ${JSON.stringify(total)}`,
    );
    // No loss, no duplicate: every (subscriber, write) exactly once.
    const expected = WRITES * SUBSCRIBERS;
    const missing = connections.flatMap((c) => [...writtenAt.keys()].filter((slug) => !received.has(`${c} ${slug}`)).map((slug) => `${c} ${slug}`));
    expect(missing, `report ${JSON.stringify(total)}, dead letters ${queue.deadLetters.length}`).toEqual([]);
    expect(received.size).toBe(expected);
    expect([...received.values()].every((times) => times === 1)).toBe(true);
    // The reports account for each frame: planned = sent + dropped; each throttled post one retry.
    expect(total).toMatchObject({ planned: expected, delivered: expected, retries: throttled, goneFrames: 0, failed: 0, timedOut: 0 });
    expect(dropped(total)).toBe(0);
    expect(throttled).toBeGreaterThan(0);
    expect(queue.deadLetters).toEqual([]);
    expect(total.ageMs).toBeGreaterThan(0);
  }, 300_000);

  it("accounts a gone connection's and a failing connection's frames as dropped, with their reasons, and ages the delivery from its write", async () => {
    const transport = new FakeTransport();
    const app = blog();
    const now = 1_000_000_000_000;
    const { repositories } = await tables(`aged-${process.pid}-`);
    const realtime = createRealtime(app, {
      repositories,
      transport,
      options: { ...DEFAULT_REALTIME_OPTIONS, retryBaseMs: 1 },
      now: () => now,
    });
    const slug = `aged-${process.pid}`;
    const ONE = `subscription { Post(slug: "${slug}") { slug } }`;
    for (const id of ["ok", "gone", "broken"]) await subscribeOver(realtime, `${id}-${process.pid}`, ONE);
    transport.on(`gone-${process.pid}`, async () => Promise.reject(apiError("GoneException", 410)));
    transport.on(`broken-${process.pid}`, async () => Promise.reject(apiError("BadRequestException", 400)));
    const record = { ...post(slug), author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 };
    const report = await realtime.fanout.deliver({ name: "Post.Updated", model: "Post", kind: "Updated", key: { slug }, record }, now - 7_000);
    expect(report).toMatchObject({ subscriptions: 3, planned: 3, delivered: 1, gone: 1, goneFrames: 1, failed: 1, timedOut: 0, ageMs: 7_000 });
    expect(dropped(report)).toBe(2);
  }, 60_000);
});
