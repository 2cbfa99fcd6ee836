import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { bundle } from "../build/bundle.ts";
import { coldStartCore } from "../cold/spawn.ts";
import { callgrindAvailable, countInstructions } from "../instructions/callgrind.ts";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { dynamoBlog } from "../warm/dynamodb.ts";
import { BLOG_ENDPOINT, BLOG_PREFIX } from "./blog.ts";
import type { Timed } from "./child.ts";
import { VARIANTS } from "./scenarios.ts";

const run = promisify(execFile);
const SECTION = "executor";
const [OURS, GRAPHQL_JS] = VARIANTS;

/**
 * Requests counted per scenario, after as many again of warm-up (a 50-post answer is many single
 * reads' work). Few: on this shared machine one process under callgrind gets a small share of a
 * core, and every count is taken at once (below).
 */
const COUNTED: Record<string, { quick: number; full: number }> = {
  "GraphQL single record (3 fields)": { quick: 50, full: 300 },
  "GraphQL 50 posts + author + tags": { quick: 10, full: 30 },
  "GraphQL mutation (updatePost)": { quick: 20, full: 100 },
};

/**
 * What keeping our executor must buy to be worth its code: at least 10% fewer instructions per
 * request than graphql-js's `execute` in the same handler (bar on the counted rows), decided
 * before measuring. The functions store in DynamoDB only, so the DynamoDB Local rows decide; the
 * in-process rows show the executor's share without a store, the timed rows whether a gain
 * survives a real store's round trips.
 */
const WORTH = 0.9;

interface Store {
  label: string;
  arg: string;
  env: Record<string, string>;
}

const measured = (name: string, samples: number[]): Measured => ({ name, summary: summarise(samples), samples });

async function timed(child: string, store: Store, options: RunOptions, cpu: number | undefined): Promise<Timed> {
  const warmUpMs = options.quick ? options.warmTimeMs : 4000;
  const command = [process.execPath, child, "time", store.arg, String(options.seed), String(options.warmRounds), String(options.warmTimeMs), String(warmUpMs)];
  const [file, ...args] = cpu === undefined ? command : ["taskset", "-c", String(cpu), ...command];
  const { stdout } = await run(file as string, args, { env: { ...process.env, ...store.env, NODE_ENV: "production" }, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Timed;
}

async function counted(child: string, store: Store, measure: string, variant: string, n: number): Promise<number> {
  const { parts, stdout } = await countInstructions(
    ["--predictable", child, "count", store.arg, measure, variant, String(n), String(n)],
    { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...store.env },
    "uv_getrusage",
  );
  if (!stdout.includes("done") || parts.length !== 3) throw new Error(`${measure} (${variant}, ${store.label}) under callgrind: ${parts.length} parts, stdout ${stdout.slice(0, 200)}`);
  return (parts[1] as number) / n;
}

async function timedRows(figures: Figures, options: RunOptions, child: string, store: Store, cpu: number | undefined): Promise<void> {
  progress(`executor [${store.label}]: ours vs graphql-js execute, ${options.warmRounds} paired rounds, ${cpu === undefined ? "unpinned (no taskset here)" : `on core ${cpu} (taskset)`} (seed ${options.seed})`);
  const times = await timed(child, store, options, cpu);
  for (const [measure, sides] of Object.entries(times)) {
    const ours = measured(OURS, sides[OURS] ?? []);
    const graphqlJs = measured(GRAPHQL_JS, sides[GRAPHQL_JS] ?? []);
    figures.add({
      section: SECTION, measure: `${measure} [${store.label}]: timed`, unit: "ops/s", higherIsBetter: true, ours, floor: graphqlJs,
      note: `one pinned process, both handlers in the same rounds; paired ratio ${barOn("", ours, graphqlJs, 1, false).ratio.toFixed(3)}x`,
    });
  }
}

/** Every store's scenarios, both sides, counted under callgrind at once (each count is its own process). */
async function countedRows(figures: Figures, options: RunOptions, child: string, stores: Store[]): Promise<void> {
  const jobs = stores.flatMap((store) => Object.keys(COUNTED).map((measure) => ({ store, measure, n: COUNTED[measure]?.[options.quick ? "quick" : "full"] ?? 10 })));
  progress(`executor: ${jobs.length * 2} counts under callgrind, all at once`);
  const counts = await Promise.all(jobs.map(async (job) => Promise.all([counted(child, job.store, job.measure, OURS, job.n), counted(child, job.store, job.measure, GRAPHQL_JS, job.n)])));
  for (const [i, { store, measure, n }] of jobs.entries()) {
    const [a, b] = counts[i] as [number, number];
    const oursCount = measured(OURS, [a / 1e3]);
    const jsCount = measured(GRAPHQL_JS, [b / 1e3]);
    figures.add({
      section: SECTION, measure: `${measure} [${store.label}]: counted`, unit: "K instructions/request", higherIsBetter: false, ours: oursCount, floor: jsCount,
      bar: barOn(`<= ${WORTH}x graphql-js execute (worth its code)`, oursCount, jsCount, WORTH, true),
      note: `${n} requests counted after ${n} of warm-up, V8 with --predictable; ${a - b >= 0 ? "+" : ""}${((a - b) / 1e3).toFixed(1)} K instructions/request against graphql-js execute`,
    });
  }
}

/**
 * The GraphQL handler with our executor against the same handler with graphql-js's `execute`
 * (bench/executor/scenarios.ts), same schema, same store, on the memory store and on DynamoDB
 * Local: timed in one pinned process (paired rounds) and counted in instructions under callgrind.
 */
export async function executorSection(figures: Figures, options: RunOptions): Promise<void> {
  const child = (await bundle("bench/executor/child.ts", `${options.outDir}/executor`)).file;
  const cpu = await coldStartCore();
  const counting = await callgrindAvailable();
  if (!counting) figures.gap(SECTION, "counted rows", "valgrind is not installed (Debian: apt-get install valgrind)");
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  progress("executor: starting DynamoDB Local");
  const db = await startDynamoDbLocal();
  try {
    const prefix = `bench-executor-${process.pid}-`;
    const blog = await dynamoBlog(db.endpoint, prefix);
    try {
      const stores: Store[] = [
        { label: "in-process store", arg: "memory", env: {} },
        { label: "DynamoDB Local", arg: "dynamodb", env: { ...localAwsEnv(), [BLOG_ENDPOINT]: db.endpoint, [BLOG_PREFIX]: prefix } },
      ];
      for (const store of stores) await timedRows(figures, options, child, store, cpu);
      if (counting) await countedRows(figures, options, child, stores);
    } finally {
      blog.close();
    }
  } finally {
    await db.stop();
  }
}
