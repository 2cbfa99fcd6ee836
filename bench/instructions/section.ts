import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { forEachBounded } from "../../lib/core/concurrency.ts";
import { bundle } from "../build/bundle.ts";
import { withCompileCache } from "../cold/compile-cache.ts";
import { CACHED, prepareCold, type Prepared } from "../cold/section.ts";
import { coldEnv } from "../cold/spawn.ts";
import { startStubDynamoDb } from "../cold/stub-dynamodb.ts";
import { AUTH, checkAnswer, FLOOR_B, FLOOR_B_GRAPHQL, GRAPHQL, REST, YOGA, type Variant } from "../cold/variants.ts";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { callgrindAvailable, countInstructions } from "./callgrind.ts";

const SECTION = "instructions";

/**
 * A process under callgrind runs some fifty times slower, and slower still on a loaded machine:
 * the stub's answer must not be given up on, nor the invocation's deadline passed (a timer's
 * length costs no instructions). A full run on the shared machine (load average 10 to 15) lost
 * the record read's count to a 503 "ran out of time" at the 29 s the child's context gave.
 */
export const UNDER_CALLGRIND = {
  DYNAMODB_REQUEST_TIMEOUT_MS: "120000",
  // The connection's 1 s too (read by lib/store/aws-budgets.ts): a count at a load average of 15
  // answered 503 "did not answer in time" without it.
  DYNAMODB_CONNECTION_TIMEOUT_MS: "120000",
  BENCH_REMAINING_MS: "600000",
};
const COLD_CHILD = fileURLToPath(new URL("../cold/child.mjs", import.meta.url));

/** The warm scenarios whose metrics cost is counted (bench/warm/scenarios.ts), on the in-process store. */
const METRICS_SCENARIOS = ["REST GET /posts/{slug}", "GraphQL single record (3 fields)"];

interface Plan {
  rounds: number;
  cold: Variant[];
  warm: string[];
  warmUp: number;
  requests: number;
}

function planOf(options: RunOptions): Plan {
  return options.quick
    ? { rounds: 1, cold: [FLOOR_B, GRAPHQL, YOGA], warm: METRICS_SCENARIOS.slice(0, 1), warmUp: 100, requests: 100 }
    : {
        rounds: 3,
        cold: [FLOOR_B, FLOOR_B_GRAPHQL, YOGA, GRAPHQL, REST, AUTH],
        warm: METRICS_SCENARIOS,
        warmUp: 6000,
        requests: 3000,
      };
}

/** One cold start under callgrind: all it executed, from Node's own start to the answer and exit. */
export async function coldCount(p: Prepared, endpoint: string): Promise<number> {
  const { parts, stdout } = await countInstructions([COLD_CHILD, p.bundle, p.event], coldEnv(endpoint, { ...p.variant.env, ...UNDER_CALLGRIND }));
  const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { status?: number; body?: string };
  checkAnswer(p.variant, answer.status, answer.body, " under callgrind");
  return parts.reduce((sum, n) => sum + n, 0);
}

/**
 * Instructions per steady-state request: the child serves `warmUp` requests, then `requests` more
 * between two calls of process.cpuUsage() (libuv's uv_getrusage, where callgrind dumps), so only
 * that stretch is read. V8 runs with --predictable (no concurrent compiler or GC threads, whose
 * timing would move the count): the request's own code, the same in either mode.
 */
async function warmCount(child: string, scenario: string, variant: string, plan: Plan): Promise<number> {
  const { parts, stdout } = await countInstructions(
    ["--predictable", child, scenario, variant, String(plan.warmUp), String(plan.requests)],
    { PATH: process.env.PATH ?? "", NODE_ENV: "production" },
    "uv_getrusage",
  );
  if (!stdout.includes("done") || parts.length !== 3)
    throw new Error(`${scenario} (${variant}) under callgrind: ${parts.length} parts, stdout ${stdout.slice(0, 200)}`);
  return (parts[1] as number) / plan.requests;
}

const measured = (name: string, samples: number[]): Measured => ({ name, summary: summarise(samples), samples });

/**
 * Cold starts and warm requests counted in instructions under valgrind's callgrind: the same
 * bundles, events and stub as the cold-start section, the same handlers as the warm one. A count
 * is what a time is on a quiet machine (the CPU's work, not the neighbours'): repeatable to a
 * fraction of a percent here, so the bars the timed sections leave undecided get a verdict. It
 * does not see what costs time without instructions (page faults, I/O waits, caches).
 */
export async function instructionsSection(figures: Figures, options: RunOptions): Promise<void> {
  if (!(await callgrindAvailable())) {
    figures.gap(SECTION, "every row", "valgrind is not installed (Debian: apt-get install valgrind)");
    return;
  }
  const plan = planOf(options);
  const uncached = await prepareCold(options.outDir, plan.cold);
  const stub = await startStubDynamoDb();
  // Each function with a bar, its floor and yoga also with V8's compile cache (the A/B rows).
  const cachedPrepared = await Promise.all(uncached.filter((p) => CACHED.includes(p.variant)).map((p) => withCompileCache(p, stub.endpoint)));
  const cachedOf = new Map(cachedPrepared.map((p) => [CACHED.find((v) => v.entry === p.variant.entry) as Variant, p.variant]));
  const prepared = [...uncached, ...cachedPrepared];
  const cold = new Map<Variant, number[]>(prepared.map((p) => [p.variant, []]));
  const random = seeded(options.seed);
  const parallel = Math.max(1, availableParallelism());
  try {
    for (let round = 0; round < plan.rounds; round++) {
      // Every variant once per round, a round's values kept at the same index: paired bars.
      const counts = new Map<Variant, number>();
      await forEachBounded(shuffled(prepared, random), parallel, async (p) => {
        counts.set(p.variant, await coldCount(p, stub.endpoint));
      });
      for (const [v, n] of counts) cold.get(v)?.push(n / 1e6);
      progress(`instructions: cold start round ${round + 1}/${plan.rounds} (callgrind)`);
    }
  } finally {
    await stub.close();
  }
  const coldOf = (v: Variant, name = v.name) => measured(name, cold.get(v) ?? []);
  const unit = "M instructions";
  const graphql = coldOf(GRAPHQL);
  figures.add({
    section: SECTION,
    measure: `cold start: ${GRAPHQL.name} vs yoga`,
    unit,
    higherIsBetter: false,
    ours: graphql,
    floor: coldOf(FLOOR_B, "(b)"),
    peer: coldOf(YOGA, "yoga"),
    bar: barOn("<= 0.65x yoga (built as the function is), no compile cache", graphql, coldOf(YOGA, "yoga"), 0.65, true),
    note: "the cold-start section's bundles, events and loopback stub; every thread of the process, user space",
  });
  if (cold.has(FLOOR_B_GRAPHQL)) {
    const floor = coldOf(FLOOR_B_GRAPHQL, "(b)+graphql-js");
    figures.add({
      section: SECTION,
      measure: `cold start: ${GRAPHQL.name}`,
      unit,
      higherIsBetter: false,
      ours: graphql,
      floor,
      bar: barOn("<= 1.05x (b)+graphql-js, no compile cache", graphql, floor, 1.05, true),
    });
  }
  for (const [v, limit] of [
    [REST, 1.05],
    [AUTH, 1.2],
  ] as const) {
    if (!cold.has(v)) continue;
    const ours = coldOf(v);
    const floorB = coldOf(FLOOR_B, "(b)");
    figures.add({
      section: SECTION,
      measure: `cold start: ${v.name}`,
      unit,
      higherIsBetter: false,
      ours,
      floor: floorB,
      bar: barOn(`<= ${limit}x (b), no compile cache`, ours, floorB, limit, true),
    });
  }
  // V8's compile cache: each side with it against itself without, then the bars with it on both sides.
  const cachedCount = (v: Variant, name?: string) => coldOf(cachedOf.get(v) as Variant, name);
  for (const v of cachedOf.keys()) {
    figures.add({
      section: SECTION,
      measure: `cold start, compile cache: ${v.name}`,
      unit,
      higherIsBetter: false,
      ours: cachedCount(v, "with cache"),
      floor: coldOf(v, "without"),
      note: "A/B: the same bundle with NODE_COMPILE_CACHE at a cache its own first start filled (import and request)",
    });
  }
  const graphqlCached = cachedCount(GRAPHQL);
  if (cachedOf.has(YOGA)) {
    const yogaCached = cachedCount(YOGA, "yoga with cache");
    figures.add({
      section: SECTION,
      measure: `cold start: ${graphqlCached.name} vs yoga`,
      unit,
      higherIsBetter: false,
      ours: graphqlCached,
      peer: yogaCached,
      bar: barOn("<= 0.65x yoga, both with compile cache", graphqlCached, yogaCached, 0.65, true),
    });
  }
  for (const [v, floor, name, limit] of [
    [GRAPHQL, FLOOR_B_GRAPHQL, "(b)+graphql-js", 1.05],
    [REST, FLOOR_B, "(b)", 1.05],
  ] as const) {
    if (!cachedOf.has(v) || !cachedOf.has(floor)) continue;
    const ours = cachedCount(v);
    const against = cachedCount(floor, `${name} with cache`);
    figures.add({
      section: SECTION,
      measure: `cold start: ${ours.name}`,
      unit,
      higherIsBetter: false,
      ours,
      floor: against,
      bar: barOn(`<= ${limit}x ${name}, both with compile cache`, ours, against, limit, true),
    });
  }
  const child = (await bundle("bench/instructions/warm-child.ts", `${options.outDir}/instructions`)).file;
  for (const scenario of plan.warm) {
    const on: number[] = [];
    const off: number[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      const [a, b] = await Promise.all([warmCount(child, scenario, "ours", plan), warmCount(child, scenario, "metrics off", plan)]);
      on.push(a / 1e3);
      off.push(b / 1e3);
      progress(`instructions: ${scenario}, metrics on vs off, round ${round + 1}/${plan.rounds} (callgrind)`);
    }
    const ours = measured("ours", on);
    const without = measured("without metrics", off);
    // The metrics' bar (at most 3% slower than the same build without metrics) as instructions: 1.03x.
    figures.add({
      section: SECTION,
      measure: `warm: ${scenario} [in-process store]: metrics on vs off`,
      unit: "K instructions/request",
      higherIsBetter: false,
      ours,
      floor: without,
      bar: barOn("<= 1.03x without metrics", ours, without, 1.03, true),
      note: `${plan.requests} requests counted after ${plan.warmUp} of warm-up, V8 with --predictable; log lines built, not written, as in the warm section`,
    });
  }
}
