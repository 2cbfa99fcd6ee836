import { randomBytes } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { SQSEvent } from "aws-lambda";
import { ensureTables } from "../../lib/local/tables.ts";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { DEFAULT_FANOUT_OPTIONS } from "../../lib/realtime/fanout-options.ts";
import { deliverShares, type WorkerParts } from "../../lib/realtime/fanout-worker.ts";
import { InProcessFanoutQueue } from "../../lib/realtime/local-queue.ts";
import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import { createRealtime, type RealtimeParts } from "../../lib/realtime/realtime.ts";
import { connectionShape, realtimeTableNames, realtimeTables, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { markerItem } from "../../lib/realtime/topic-markers.ts";
import { dynamoPackTable } from "../../lib/realtime/pack-table.ts";
import { bucketOf, depthFor, slotKey } from "../../lib/realtime/topic-packs.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { blog, post } from "../../test/support/blog.ts";
import { recordCalls } from "../dynamo/recorder.ts";
import { barOn, type Figures } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { summarise } from "../lib/stats.ts";
import { subscribe } from "./subscribers.ts";
import { FixedLatencyTransport } from "./transport.ts";

const LATENCY_MS = 10;
/** The template's maximum concurrency of the worker's event source (`fanoutWorkers`). */
const WORKERS = DEFAULT_FANOUT_OPTIONS.workers;
/**
 * Worker invocations the bench runs at once in this process. Lambda would run up to WORKERS, each
 * on its own instance; here they share one process and one DynamoDB Local (one JVM on a shared
 * machine), which answered 64 share reads at once slower than the client's 3 s budget. The
 * invocations' own durations are scheduled on WORKERS simulated workers instead (`simulatedMs`).
 */
const RUN_AT_ONCE = 8;

/** When the last of `durations` would end, each started in order on the first of `workers` free workers. */
function makespan(durations: number[], workers: number): number {
  const free = Array<number>(Math.min(workers, Math.max(1, durations.length))).fill(0);
  for (const duration of durations) {
    const first = free.indexOf(Math.min(...free));
    free[first] = (free[first] as number) + duration;
  }
  return Math.max(...free);
}

interface Run {
  /** The stream function's time for the event: markers read, shares planned and sent. */
  streamMs: number;
  /** From the plan's start to the last post's end, the invocations on WORKERS simulated workers. */
  totalMs: number;
  /** The same in this process, RUN_AT_ONCE invocations at a time. */
  wallMs: number;
  invocations: number;
  workers: number;
  readUnits: number;
  delivered: number;
  byCommand: string;
}

const eventFor = (slug: string) => ({
  name: "Post.Updated",
  model: "Post",
  kind: "Updated" as const,
  key: { slug },
  record: { ...post(slug), author: "bench", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 2 },
});

/**
 * Sharded fan-out: one topic of N subscribers (rows in DynamoDB Local, the topic's marker set), the
 * stream's planner sending share messages to the in-process FIFO queue, worker invocations each on
 * a simulated Lambda instance of its own (its own cache of subscription documents; a new instance only when every earlier
 * one is busy, as Lambda scales; at most the template's 100 at once), posts at 10 ms. Today's path
 * (the stream function delivering the event itself, reading the topic's rows) runs over the same
 * table in the same run: its read units per delivery are the reference.
 */
export async function fanoutShardedSection(figures: Figures, options: RunOptions): Promise<void> {
  const sizes = options.quick ? [200, 1_000] : [1_000, 10_000, 100_000];
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  progress(`fan-out (sharded): starting DynamoDB Local; sizes in a random order (seed ${options.seed})`);
  const db = await startDynamoDbLocal();
  const admin = new DynamoDBClient({ endpoint: db.endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  const documents = createDocumentClient(db.endpoint);
  const recorder = recordCalls(documents);
  const streamMs = new Map<number, number[]>();
  try {
    for (const size of shuffled(sizes, seeded(options.seed))) {
      const prefix = `bench-sharded-${process.pid}-${size}-`;
      await ensureTables(admin, realtimeTables(prefix));
      const names = realtimeTableNames(prefix);
      const subscriptions = new DynamoRepository(documents, names.subscriptions, subscriptionShape);
      const transport = new FixedLatencyTransport();
      const parts: RealtimeParts = {
        repositories: {
          connections: new DynamoRepository(documents, names.connections, connectionShape),
          subscriptions,
          userConnections: new DynamoRepository(documents, names.userConnections, userConnectionShape),
          topicMarkers: subscriptions,
          topicPacks: dynamoPackTable(documents, names.subscriptions),
        },
        transport,
        options: DEFAULT_REALTIME_OPTIONS,
        fanoutOptions: DEFAULT_FANOUT_OPTIONS,
      };
      const app = blog();
      await seed(
        app,
        parts,
        DynamoDBDocumentClient.from(admin, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } }),
        names.subscriptions,
        size,
      );

      // Today's path, once: the event's topics read whole by the stream function, which posts.
      const today = createRealtime(app, parts);
      transport.latencyMs = LATENCY_MS;
      recorder.reset();
      const todayStarted = performance.now();
      const todayReport = await today.fanout.deliver(eventFor("today"));
      const todayMs = performance.now() - todayStarted;
      const todayUnits = (1000 * recorder.calls.reduce((sum, c) => sum + c.capacity, 0)) / Math.max(1, todayReport.delivered);
      if (todayReport.delivered !== size) throw new Error(`fan-out (sharded) to ${size}: today's path delivered ${todayReport.delivered}`);

      const queue = new InProcessFanoutQueue({ workers: RUN_AT_ONCE, maxReceives: 3 });
      const stream = createRealtime(app, { ...parts, fanoutQueue: queue });
      // An event's k-th invocation runs on simulated instance k: as many instances as Lambda would
      // run at once for it (each with its own documents kept), reused by the next event.
      const instances: WorkerParts[] = [];
      let durations: number[] = [];
      queue.attach(async (event: SQSEvent) => {
        const index = durations.push(0) - 1;
        const k = index % WORKERS;
        const instance = (instances[k] ??= createRealtime(app, parts));
        const started = performance.now();
        try {
          return (await deliverShares(instance, event)).response;
        } finally {
          durations[index] = performance.now() - started;
        }
      });
      const runs: Run[] = [];
      // The first event finds every instance cold (documents not yet read); the later ones are the steady state.
      for (let i = 0; i <= Math.max(2, options.fanoutRepeats); i++) {
        recorder.reset();
        const posts = transport.posts;
        const invocations = queue.invocations;
        queue.maxConcurrent = 0;
        durations = [];
        const started = performance.now();
        const planned = await stream.planner?.plan(eventFor(`s${i}`), `${1000 + i}`);
        const planMs = performance.now() - started;
        await stream.planner?.settled();
        const wallMs = performance.now() - started;
        const totalMs = planMs + makespan(durations, WORKERS);
        const delivered = transport.posts - posts;
        if (!planned || delivered !== size) throw new Error(`fan-out (sharded) to ${size}: delivered ${delivered}`);
        const byCommand = new Map<string, number>();
        for (const call of recorder.calls) byCommand.set(call.command, (byCommand.get(call.command) ?? 0) + call.capacity);
        runs.push({
          streamMs: planMs,
          totalMs,
          wallMs,
          invocations: queue.invocations - invocations,
          workers: Math.min(WORKERS, queue.invocations - invocations),
          readUnits: recorder.calls.reduce((sum, c) => sum + c.capacity, 0),
          byCommand: [...byCommand].map(([command, capacity]) => `${command} ${capacity}`).join(", "),
          delivered,
        });
      }
      const [cold, ...warm] = runs as [Run, ...Run[]];
      const total = { name: "ours", summary: summarise(warm.map((r) => r.totalMs)) };
      const stream1 = { name: "ours", summary: summarise(warm.map((r) => r.streamMs)) };
      streamMs.set(
        size,
        warm.map((r) => r.streamMs),
      );
      // Per 1,000 deliveries: per delivery, the table would round the steady state to 0.0.
      const units = { name: "ours", summary: summarise(warm.map((r) => (1000 * r.readUnits) / r.delivered)) };
      const label = `${size.toLocaleString("en")} subscribers of one topic`;
      const fleet = `${Math.max(...warm.map((r) => r.invocations))} worker invocations, ${Math.max(...warm.map((r) => r.workers))} simulated workers at once (${instances.length} instances)`;
      figures.add({
        section: "fan-out (sharded)",
        measure: `${label}: write to last delivery`,
        unit: "ms",
        higherIsBetter: false,
        ours: total,
        floor: { name: "today's path (measured once)", summary: summarise([todayMs]) },
        ...(size === 100_000 ? { bar: barOn("<= 5 s", total, 5_000, 1, true) } : {}),
        note: `simulated time: the plan, then the invocations' measured durations on ${WORKERS} workers; ${fleet}; in this process ${RUN_AT_ONCE} at a time: median ${summarise(warm.map((r) => r.wallMs)).median.toFixed(0)} ms; first event (cold instances) ${cold.totalMs.toFixed(0)} ms simulated; ${LATENCY_MS} ms/post, ${DEFAULT_REALTIME_OPTIONS.concurrency} in flight per worker`,
      });
      figures.add({
        section: "fan-out (sharded)",
        measure: `${label}: read units per 1,000 deliveries`,
        unit: "RCU",
        higherIsBetter: false,
        ours: units,
        floor: { name: "today's path", summary: summarise([todayUnits]) },
        ...(size >= 1_000 ? { bar: barOn("<= 0.1x today's", units, todayUnits, 0.1, true) } : {}),
        note: `later events (one event's read units: ${warm[0]?.byCommand ?? ""}): the record topic's marker read (the model topic's kept while it has subscribers), each share's pack Query (eventually consistent), documents already kept by the instances; first event ${((1000 * cold.readUnits) / cold.delivered).toFixed(2)} RCU per 1,000 deliveries (each new instance reads the topic's document once)`,
      });
      figures.add({
        section: "fan-out (sharded)",
        measure: `${label}: stream per-event time`,
        unit: "ms",
        higherIsBetter: false,
        ours: stream1,
        note: `markers read, ${Math.max(...warm.map((r) => r.invocations))} share messages planned and sent (in-process queue)`,
      });
      progress(
        `fan-out (sharded): ${size}: ${total.summary.median.toFixed(0)} ms to last delivery, stream ${stream1.summary.median.toFixed(1)} ms, ${units.summary.median.toFixed(3)} RCU per 1,000 deliveries (today ${todayUnits.toFixed(2)}), ${fleet}`,
      );
    }
    const smallest = Math.min(...sizes);
    const largest = Math.max(...sizes);
    const flat = { name: "ours", summary: summarise(streamMs.get(largest) ?? []) };
    const base = { name: `${smallest.toLocaleString("en")} subscribers`, summary: summarise(streamMs.get(smallest) ?? []) };
    figures.add({
      section: "fan-out (sharded)",
      measure: `stream per-event time, ${largest.toLocaleString("en")} vs ${smallest.toLocaleString("en")} subscribers`,
      unit: "ms",
      higherIsBetter: false,
      ours: flat,
      floor: base,
      bar: barOn("<= 2x (flat)", flat, base, 2, true),
    });
  } finally {
    admin.destroy();
    documents.destroy();
    await db.stop();
  }
}

/**
 * One subscriber through the protocol (its row is the template), then `size` rows like it written
 * in bulk with random base64 connection ids, as API Gateway's look, the topic's packs holding
 * each of them as a subscribe would have written it (the template's entry, under each id), and the
 * topic's marker set.
 */
async function seed(app: ReturnType<typeof blog>, parts: RealtimeParts, documents: DynamoDBDocumentClient, table: string, size: number): Promise<void> {
  // Through the seeding client too: a write retried after the service's short timeout would find itself (409).
  const names = realtimeTableNames(table.slice(0, -"ws-subscriptions".length));
  const subscriptions = new DynamoRepository(documents, names.subscriptions, subscriptionShape);
  const realtime = createRealtime(app, {
    ...parts,
    repositories: {
      connections: new DynamoRepository(documents, names.connections, connectionShape),
      subscriptions,
      userConnections: new DynamoRepository(documents, names.userConnections, userConnectionShape),
      topicMarkers: subscriptions,
      topicPacks: dynamoPackTable(documents, names.subscriptions),
    },
  });
  await subscribe(realtime, 1);
  const packKey = { connectionId: "\u0000pack:Post", id: slotKey(bucketOf("c0", 1), 0) };
  const entry = (await documents.send(new GetCommand({ TableName: table, Key: packKey }))).Item?.["c0 s"];
  if (typeof entry !== "string") throw new Error("fan-out (sharded): no template pack entry");
  await documents.send(new DeleteCommand({ TableName: table, Key: packKey }));
  const template = (await documents.send(new GetCommand({ TableName: table, Key: { connectionId: "c0", id: "s" } }))).Item;
  if (!template) throw new Error("fan-out (sharded): no template subscription");
  await documents.send(new PutCommand({ TableName: table, Item: { ...template, connectionId: "c0", topic: "unused" } }));
  progress(`fan-out (sharded): writing ${size} subscription rows`);
  const ids = Array.from({ length: size }, () => randomBytes(12).toString("base64"));
  const batches: string[][] = [];
  for (let at = 0; at < ids.length; at += 25) batches.push(ids.slice(at, at + 25));
  let next = 0;
  // Through a client without the service's short timeouts: DynamoDB Local is slow to take bulk writes.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) {
        const batch = batches[next++] as string[];
        let items = batch.map((connectionId) => ({ PutRequest: { Item: { ...template, connectionId } } }));
        while (items.length > 0) {
          const result = await documents.send(new BatchWriteCommand({ RequestItems: { [table]: items } }));
          items = (result.UnprocessedItems?.[table] ?? []) as typeof items;
        }
      }
    }),
  );
  // The depth the topic's subscribes would have reached: each subscribe writes at its count's.
  const depth = depthFor(size);
  const buckets = new Map<string, Record<string, string | number>>();
  for (const connectionId of ids) {
    // Each bucket's item 0, with the count of its entries' bytes a subscribe keeps.
    const bucket = buckets.get(bucketOf(connectionId, depth)) ?? { connectionId: "\u0000pack:Post", id: slotKey(bucketOf(connectionId, depth), 0), bytes: 0 };
    bucket[`${connectionId} s`] = entry;
    bucket.bytes = Number(bucket.bytes) + Buffer.byteLength(`${connectionId} s`) + Buffer.byteLength(entry);
    buckets.set(bucketOf(connectionId, depth), bucket);
  }
  const packs = [...buckets.values()];
  for (let at = 0; at < packs.length; at += 25) {
    let items = packs.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } }));
    while (items.length > 0) {
      const result = await documents.send(new BatchWriteCommand({ RequestItems: { [table]: items } }));
      items = (result.UnprocessedItems?.[table] ?? []) as typeof items;
    }
  }
  await documents.send(new PutCommand({ TableName: table, Item: markerItem("Post", size) }));
}
