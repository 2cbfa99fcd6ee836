import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";

/**
 * The load test's WebSocket fan-out variant: `subscribers` graphql-ws clients (one signed-in test
 * user each, so the per-user connection limit plays no part) subscribe to published posts over
 * `npm start`'s WebSocket API; `writes` published posts are then created over REST, `concurrency`
 * at a time, and every subscriber must receive every one of them exactly once.
 */
export interface FanoutFigures {
  subscribers: number;
  writes: number;
  seconds: number;
  writesPerSecond: number;
  expected: number;
  delivered: number;
  lost: number;
  duplicates: number;
  /** From the write's answer to the delivery, ms. */
  p50: number;
  p99: number;
  writeErrors: number;
  /** Subscriptions the server ended with an error or a closed socket. */
  subscriptionErrors: number;
}

const QUERY = `subscription { Posts(query: "status = 'published'") { type key } }`;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

export async function fanoutTest(
  base: string,
  wsUrl: string,
  options: { subscribers: number; writes: number; concurrency: number; settleMs?: number },
): Promise<FanoutFigures> {
  const run = randomUUID().slice(0, 8);
  const clients: Client[] = [];
  /** Per subscriber: slug -> arrival times (more than one is a duplicate). */
  const arrivals: Map<string, number[]>[] = [];
  let subscriptionErrors = 0;
  const closeCodes: number[] = [];
  const pending: Promise<void>[] = [];
  try {
    // Five connections at a time, each batch connected before the next: 50 at once made offline
    // start 50 instances of the WebSocket function, and the slow ones missed graphql-ws's
    // connection_init deadline (the socket closed before any subscription).
    for (let i = 0; i < options.subscribers; i++) {
      const seen = new Map<string, number[]>();
      arrivals.push(seen);
      const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams: { testUser: randomUUID() }, retryAttempts: 0, lazy: true });
      clients.push(client);
      const connected = new Promise<void>((resolve) => {
        client.on("connected", () => resolve());
        client.on("closed", (event) => {
          closeCodes.push((event as { code?: number }).code ?? 0);
          resolve();
        });
      });
      pending.push(connected);
      client.subscribe<{ Posts?: { type: string; key: { slug?: string } | string } }>(
        { query: QUERY },
        {
          next: (value) => {
            const key = value.data?.Posts?.key;
            const slug = typeof key === "string" ? key : key?.slug;
            if (slug?.startsWith(`fan-${run}-`)) seen.set(slug, [...(seen.get(slug) ?? []), Date.now()]);
          },
          error: () => {
            subscriptionErrors++;
          },
          complete: () => undefined,
        },
      );
      if (pending.length === 5 || i === options.subscribers - 1) {
        await Promise.race([Promise.all(pending), sleep(60_000)]);
        pending.length = 0;
      }
    }
    const writer = randomUUID();
    const headers = { "content-type": "application/json", "x-test-user": writer };
    await fetch(`${base}/users`, { method: "POST", headers, body: JSON.stringify({ username: `fan${run}`, name: "Fan" }) });
    const write = async (slug: string): Promise<number | undefined> => {
      const r = await fetch(`${base}/posts`, {
        method: "POST",
        headers,
        body: JSON.stringify({ slug, title: "Fan-out", content: "Body", status: "published", viewCount: 0 }),
      });
      await r.text();
      return r.status === 200 ? Date.now() : undefined;
    };
    // Warm-up: a probe every 2 s until every subscriber has received one, so every subscription
    // is stored (subscribing is asynchronous) and the functions are warm before the measure.
    const probed = (a: Map<string, number[]>) => [...a.keys()].some((slug) => slug.startsWith(`fan-${run}-probe-`));
    const warmDeadline = Date.now() + 120_000;
    for (let k = 0; arrivals.some((a) => !probed(a)) && Date.now() < warmDeadline; k++) {
      await write(`fan-${run}-probe-${k}`);
      await sleep(2000);
    }
    const ready = arrivals.filter(probed).length;
    if (ready < options.subscribers)
      throw new Error(
        `only ${ready} of ${options.subscribers} subscribers received the warm-up write (${subscriptionErrors} subscription errors, close codes ${closeCodes.join(",")})`,
      );

    const answered = new Map<string, number>();
    let writeErrors = 0;
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.writes) {
          const slug = `fan-${run}-${next++}`;
          const at = await write(slug).catch(() => undefined);
          if (at === undefined) writeErrors++;
          else answered.set(slug, at);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    // Deliveries trail the writes by the stream's polling and the fan-out itself.
    const settleDeadline = Date.now() + (options.settleMs ?? 60_000);
    const complete = () => arrivals.every((a) => [...answered.keys()].every((slug) => a.has(slug)));
    while (!complete() && Date.now() < settleDeadline) await sleep(250);
    await sleep(1000); // late duplicates

    const latencies: number[] = [];
    let delivered = 0;
    let duplicates = 0;
    for (const a of arrivals) {
      for (const [slug, at] of answered) {
        const times = a.get(slug) ?? [];
        if (times.length > 0) {
          delivered++;
          latencies.push(Math.max(0, (times[0] as number) - at));
        }
        duplicates += Math.max(0, times.length - 1);
      }
    }
    latencies.sort((x, y) => x - y);
    const expected = answered.size * options.subscribers;
    return {
      subscribers: options.subscribers,
      writes: options.writes,
      seconds,
      writesPerSecond: answered.size / seconds,
      expected,
      delivered,
      lost: expected - delivered,
      duplicates,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      writeErrors,
      subscriptionErrors,
    };
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
  }
}

export function formatFanout(f: FanoutFigures): string {
  return `[load] fan-out: ${f.subscribers} subscribers, ${f.writes} writes in ${f.seconds.toFixed(1)} s (${f.writesPerSecond.toFixed(1)} writes/s): ${f.delivered}/${f.expected} deliveries, lost ${f.lost}, duplicates ${f.duplicates}, write to delivery p50 ${f.p50} ms, p99 ${f.p99} ms, write errors ${f.writeErrors}, subscriptions ended by an error ${f.subscriptionErrors}`;
}
