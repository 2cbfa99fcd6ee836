// A bounded load test against `npm start` (serverless offline + DynamoDB Local, loopback only):
// a fixed number of requests of a mixed REST/GraphQL read/write workload over 50 connections.
// Prints throughput, p50/p99 latency and errors; exits 1 on any error or non-2xx answer.
// Then the WebSocket fan-out variant (load-fanout.ts): 50 subscribers, 100 published posts.
// `npm test` runs a smaller one (load.test.ts).
//   npm run load                       5,000 requests, then the fan-out
//   LOAD_REQUESTS=50000 npm run load   longer; LOAD_SUBSCRIBERS, LOAD_FANOUT_WRITES size the fan-out
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { startOffline } from "../support/offline.ts";
import { fanoutTest, formatFanout } from "./load-fanout.ts";

const AMOUNT = Number(process.env.LOAD_REQUESTS ?? 5_000);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const USER = randomUUID();
const run = randomUUID().slice(0, 8);
const headers = { "content-type": "application/json", "x-test-user": USER };

/** The ramp before the measured run: what it sent and what went wrong (counted as failures too). */
export interface WarmUp {
  steps: number[];
  requests: number;
  seconds: number;
  failures: number;
}

export interface LoadFigures {
  warmUp: WarmUp;
  connections: number;
  requests: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  timeouts: number;
}

/** The workload, one cycle per connection: reads and writes on both faces, 60/40. */
// One counter for every run of the workload (the ramp's steps, then the measured run): each
// created post needs a slug of its own.
let posts = 0;
const slug = () => `load-${run}-${posts++}`;

function workload(): autocannon.Request[] {
  return [
    { method: "GET", path: "/posts/load-seed", headers },
    {
      method: "POST",
      path: "/posts",
      headers,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ slug: slug(), title: "Load", content: "Body", status: "published", viewCount: 0 }) }),
    },
    { method: "POST", path: "/graphql", headers, body: JSON.stringify({ query: '{ Post(slug: "load-seed") { slug title author { username } } }' }) },
    { method: "PATCH", path: "/posts/load-seed", headers, body: JSON.stringify({ content: "patched under load" }) },
    { method: "PUT", path: "/posts", headers, body: JSON.stringify({ q: "status = 'published' ORDER BY createdAt DESC LIMIT 10" }) },
    {
      method: "POST",
      path: "/graphql",
      headers,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          query: "mutation($p: PostInput!) { createPost(Post: $p) { slug } }",
          variables: { p: { slug: slug(), title: "GraphQL load", content: "Body", status: "draft", viewCount: 0 } },
        }),
      }),
    },
    {
      method: "POST",
      path: "/graphql",
      headers,
      body: JSON.stringify({ query: "{ Posts(query: \"status = 'published'\", limit: 10) { results { slug } } }" }),
    },
    { method: "GET", path: "/version", headers },
  ];
}

/**
 * serverless offline runs an invocation that finds every instance of its function busy in a new
 * worker thread, which loads the bundle again (a cold start, 0.5..1.3 s on 2 cores). Opening 50
 * connections at once starts dozens of them together and requests queue behind them for tens of
 * seconds. The measured run is the steady state, so the pools grow first, a few connections at a
 * time, as traffic ramping up would grow Lambda's; the ramp's own failures still fail the test.
 */
async function rampUp(base: string, connections: number): Promise<WarmUp> {
  const steps = [...new Set([2, 5, 10, 15, 20, 25, 30, 35, 40, 45, connections].filter((c) => c <= connections))];
  const started = performance.now();
  let requests = 0;
  let failures = 0;
  for (const step of steps) {
    // One cycle of the workload per connection: each function sees up to `step` callers at once.
    const result = await autocannon({ url: base, connections: step, amount: step * workload().length, requests: workload(), timeout: 30 });
    requests += result.requests.total;
    failures += result.errors + result.non2xx + result.timeouts;
  }
  return { steps, requests, seconds: (performance.now() - started) / 1000, failures };
}

export async function loadTest(base: string, amount = AMOUNT, connections = CONNECTIONS): Promise<LoadFigures> {
  const seed = await fetch(`${base}/posts`, {
    method: "POST",
    headers,
    body: JSON.stringify({ slug: "load-seed", title: "Seed", content: "Seed", status: "published", viewCount: 0 }),
  });
  if (seed.status !== 200 && seed.status !== 409) throw new Error(`seeding: ${seed.status} ${await seed.text()}`);
  await fetch(`${base}/users`, { method: "POST", headers, body: JSON.stringify({ username: `load${run}`, name: "Load" }) });
  // The seed may belong to an earlier run's user: this run patches its own.
  if (seed.status === 409) await fetch(`${base}/posts/load-seed`, { method: "DELETE", headers: { "x-test-user": USER } });
  const warmUp = await rampUp(base, connections);
  const result = await autocannon({ url: base, connections, amount, requests: workload(), timeout: 30 });
  return {
    warmUp,
    connections,
    requests: result.requests.total,
    seconds: result.duration,
    throughput: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
  };
}

export function formatFigures(f: LoadFigures): string {
  const w = f.warmUp;
  return `[load] warm-up: ${w.requests} requests ramping ${w.steps.join(", ")} connections in ${w.seconds.toFixed(1)} s, failures ${w.failures}\n[load] measured: ${f.requests} requests, ${f.connections} connections, ${f.seconds.toFixed(1)} s: ${f.throughput.toFixed(0)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, errors ${f.errors}, non-2xx ${f.non2xx}, timeouts ${f.timeouts}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const offline = await startOffline();
  try {
    // LOAD_REQUESTS=0 runs the fan-out alone.
    const figures = AMOUNT > 0 ? await loadTest(offline.url) : undefined;
    if (figures) console.info(formatFigures(figures));
    const fanout = await fanoutTest(offline.url, `ws://127.0.0.1:${OFFLINE_PORTS.websocket}`, {
      subscribers: Number(process.env.LOAD_SUBSCRIBERS ?? 50),
      writes: Number(process.env.LOAD_FANOUT_WRITES ?? 100),
      concurrency: 10,
    });
    console.info(formatFanout(fanout));
    const failures =
      (figures ? figures.warmUp.failures + figures.errors + figures.non2xx + figures.timeouts : 0) +
      fanout.lost +
      fanout.duplicates +
      fanout.writeErrors +
      fanout.subscriptionErrors;
    process.exitCode = failures === 0 ? 0 : 1;
  } finally {
    await offline.stop();
  }
}
