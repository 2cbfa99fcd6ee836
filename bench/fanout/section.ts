import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import { createRealtime } from "../../lib/realtime/realtime.ts";
import { connectionShape, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";
import { blog, post } from "../../test/support/blog.ts";
import { barOn, type Figures } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { summarise } from "../lib/stats.ts";
import { fanoutDynamoSection } from "./dynamodb.ts";
import { subscribe } from "./subscribers.ts";
import { FixedLatencyTransport } from "./transport.ts";

const LATENCY_MS = 10;
const CONCURRENCY = DEFAULT_REALTIME_OPTIONS.concurrency;

/**
 * The best case first (rows in the memory store, one anonymous filter), then the realistic one.
 * One lifecycle event delivered by lib/realtime's Fanout to N subscribers of the same filter,
 * over an injected management API of fixed latency, against the ideal N x latency / concurrency.
 */
export async function fanoutSection(figures: Figures, options: RunOptions): Promise<void> {
  // Sizes in a random order (seed printed): no size always runs on the freshest process.
  progress(`fan-out: sizes in a random order (seed ${options.seed})`);
  for (const size of shuffled(options.fanoutSizes, seeded(options.seed))) {
    const transport = new FixedLatencyTransport();
    const realtime = createRealtime(blog(), {
      repositories: {
        connections: new MemoryRepository(connectionShape),
        subscriptions: new MemoryRepository(subscriptionShape),
        userConnections: new MemoryRepository(userConnectionShape),
      },
      transport,
      options: { ...DEFAULT_REALTIME_OPTIONS, concurrency: CONCURRENCY },
    });
    progress(`fan-out: ${size} subscribers connecting`);
    await subscribe(realtime, size);
    transport.latencyMs = LATENCY_MS;
    const times: number[] = [];
    const firstPosts: number[] = [];
    for (let i = 0; i < options.fanoutRepeats; i++) {
      const before = transport.posts;
      transport.mark();
      const started = performance.now();
      const report = await realtime.fanout.deliver({
        name: "Post.Created",
        model: "Post",
        kind: "Created",
        key: { slug: `f${i}` },
        record: { ...post(`f${i}`), author: "bench", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 },
      });
      times.push(performance.now() - started);
      firstPosts.push((transport.firstPostAt ?? Number.NaN) - started);
      if (report.delivered !== size || transport.posts - before !== size)
        throw new Error(`fan-out to ${size}: delivered ${report.delivered}, posted ${transport.posts - before}`);
    }
    const ideal = (size * LATENCY_MS) / CONCURRENCY;
    const ours = { name: "ours", summary: summarise(times) };
    figures.add({
      section: "fan-out",
      measure: `${size.toLocaleString("en")} subscribers (${LATENCY_MS} ms/post, ${CONCURRENCY} in flight)`,
      unit: "ms",
      higherIsBetter: false,
      ours,
      // Not measured: N x latency / concurrency, computed.
      floor: { name: "ideal (computed)", summary: summarise([ideal]) },
      ...(size === 1_000 ? { bar: barOn("<= 1.2x ideal", ours, ideal, 1.2, true) } : {}),
      note: `at most ${transport.maxInFlight} posts in flight; first post after ${summarise(firstPosts).median.toFixed(1)} ms (median)`,
    });
    progress(`fan-out: ${size} subscribers: ${ours.summary.median.toFixed(0)} ms (ideal ${ideal.toFixed(0)} ms)`);
  }
  await fanoutDynamoSection(figures, options);
}
