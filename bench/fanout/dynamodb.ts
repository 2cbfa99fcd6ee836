import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ensureTables } from "../../lib/local/tables.ts";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import { createRealtime } from "../../lib/realtime/realtime.ts";
import { connectionShape, realtimeTableNames, realtimeTables, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { blog, post } from "../../test/support/blog.ts";
import { barOn, type Figures } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { enableTestUser } from "../warm/section.ts";
import { WRITERS } from "../warm/blog.ts";
import { FILTERS, MATCHING_FILTERS, subscribe } from "./subscribers.ts";
import { FixedLatencyTransport } from "./transport.ts";

const LATENCY_MS = 10;
const CONCURRENCY = DEFAULT_REALTIME_OPTIONS.concurrency;

/**
 * The realistic fan-out: connection and subscription rows in DynamoDB Local (the event's lookup is
 * the real Query on `by_topic`), subscribers signed in as five different users, spread over four
 * filters of which three match. Ideal: the matching subscribers x latency / concurrency.
 */
export async function fanoutDynamoSection(figures: Figures, options: RunOptions): Promise<void> {
  const size = options.quick ? 100 : 1_000;
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  enableTestUser();
  progress("fan-out (DynamoDB): starting DynamoDB Local");
  const db = await startDynamoDbLocal();
  const prefix = `bench-fanout-${process.pid}-`;
  const admin = new DynamoDBClient({ endpoint: db.endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  const documents = createDocumentClient(db.endpoint);
  try {
    await ensureTables(admin, realtimeTables(prefix));
    const names = realtimeTableNames(prefix);
    const transport = new FixedLatencyTransport();
    const realtime = createRealtime(blog(), {
      repositories: {
        connections: new DynamoRepository(documents, names.connections, connectionShape),
        subscriptions: new DynamoRepository(documents, names.subscriptions, subscriptionShape),
        userConnections: new DynamoRepository(documents, names.userConnections, userConnectionShape),
      },
      transport,
      // A few writers stand for the many signed-in subscribers: the per-user limit (10 by default)
      // is raised so it measures delivery, not refusals.
      options: { ...DEFAULT_REALTIME_OPTIONS, concurrency: CONCURRENCY, maxConnectionsPerUser: size },
    });
    progress(`fan-out (DynamoDB): ${size} signed-in subscribers over ${FILTERS.length} filters connecting`);
    await subscribe(realtime, size, { batch: 50, query: (i) => FILTERS[i % FILTERS.length] as string, user: (i) => WRITERS[i % WRITERS.length] });
    const expected = Array.from({ length: size }, (_, i) => i % FILTERS.length < MATCHING_FILTERS).filter(Boolean).length;
    const times: number[] = [];
    const firstPosts: number[] = [];
    // One discarded delivery first: DynamoDB Local's JVM compiles its Query path on first use.
    await realtime.fanout.deliver({
      name: "Post.Created",
      model: "Post",
      kind: "Created",
      key: { slug: "warm-up" },
      record: { ...post("warm-up"), author: "bench", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 },
    });
    transport.latencyMs = LATENCY_MS;
    for (let i = 0; i < options.fanoutRepeats; i++) {
      const before = transport.posts;
      transport.mark();
      const started = performance.now();
      const report = await realtime.fanout.deliver({
        name: "Post.Created",
        model: "Post",
        kind: "Created",
        key: { slug: `d${i}` },
        record: { ...post(`d${i}`), author: "bench", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 },
      });
      times.push(performance.now() - started);
      firstPosts.push((transport.firstPostAt ?? Number.NaN) - started);
      if (report.delivered !== expected || transport.posts - before !== expected)
        throw new Error(`fan-out (DynamoDB) to ${size}: delivered ${report.delivered}, posted ${transport.posts - before}, expected ${expected}`);
    }
    const ideal = (expected * LATENCY_MS) / CONCURRENCY;
    const ours = { name: "ours", summary: summarise(times) };
    figures.add({
      section: "fan-out",
      measure: `${size.toLocaleString("en")} signed-in subscribers, ${FILTERS.length} filters, rows in DynamoDB Local`,
      unit: "ms",
      higherIsBetter: false,
      ours,
      // Not measured: matching subscribers x latency / concurrency, computed.
      floor: { name: "ideal (computed)", summary: summarise([ideal]) },
      ...(size === 1_000 ? { bar: barOn("<= 1.2x ideal", ours, ideal, 1.2, true) } : {}),
      note: `${expected} of ${size} match and are posted to (${LATENCY_MS} ms/post, ${CONCURRENCY} in flight, at most ${transport.maxInFlight}); the subscription lookup is a Query on by_topic in DynamoDB Local, read in pages while posting; first post after ${summarise(firstPosts).median.toFixed(1)} ms (median)`,
    });
    progress(`fan-out (DynamoDB): ${size} subscribers: ${ours.summary.median.toFixed(0)} ms (ideal ${ideal.toFixed(0)} ms)`);
  } finally {
    admin.destroy();
    documents.destroy();
    await db.stop();
  }
}
