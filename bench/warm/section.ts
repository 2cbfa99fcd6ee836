import { Bench } from "tinybench";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { summarise } from "../lib/stats.ts";
import { profileWarm } from "../profile/profile.ts";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { startOtlpSink } from "../lib/otlp-sink.ts";
import { dynamoBlog, tracedBlog } from "./dynamodb.ts";
import { productionEnv } from "./production-env.ts";
import { warmScenarios, type Scenario } from "./scenarios.ts";
import type { Task } from "./tasks.ts";

/** The local test-user hook, so the mutation runs as its author in every implementation alike. */
export function enableTestUser(): void {
  process.env.IS_OFFLINE = "true";
  process.env.ALLOW_TEST_USER = "true";
}

const tasksOf = (s: Scenario): Task[] => [
  s.ours,
  s.floor,
  s.peer,
  ...s.references,
  ...(s.withoutMetrics ? [s.withoutMetrics] : []),
  ...(s.withTracing ? [s.withTracing] : []),
];

/** One tinybench round over every task; ops/s by task. */
async function round(tasks: Task[], timeMs: number): Promise<Map<Task, number>> {
  const bench = new Bench({ time: timeMs, warmupTime: Math.min(100, timeMs), throws: true });
  for (const task of tasks)
    bench.add(task.name, task.run, { ...(task.before ? { beforeAll: task.before } : {}), ...(task.after ? { afterAll: task.after } : {}) });
  await bench.run();
  const out = new Map<Task, number>();
  bench.tasks.forEach((t, i) => {
    const result = t.result;
    if (result.state !== "completed") throw new Error(`${t.name}: ${result.state}`);
    out.set(tasks[i] as Task, result.throughput.mean);
  });
  return out;
}

/** Per task, before the recorded rounds of a full run. */
const WARM_UP_MS = 4000;

async function rounds(scenarios: Scenario[], samples: Map<Task, number[]>, options: RunOptions): Promise<void> {
  // One round first, not recorded and longer: tinybench's own warm-up (100 ms) leaves a large
  // implementation (yoga) being optimised for seconds, its throughput still rising through the
  // recorded rounds (single record: from a fifth of its steady rate to all of it in about 2 s of
  // running; 50 posts: still rising after 4 s), which flattered every ratio to it and widened its
  // spread. Every task gets the same warm-up, ours included.
  const warmUpMs = options.quick ? options.warmTimeMs : WARM_UP_MS;
  // Scenarios, and the tasks within each, in an order shuffled every round (tinybench runs its
  // tasks one after another, in the order added): no implementation always runs first or last.
  const random = seeded(options.seed);
  progress(`warm: ${options.warmRounds} rounds, scenarios and tasks in a random order each round (seed ${options.seed}; --seed=${options.seed} replays it)`);
  for (const s of shuffled(scenarios, random)) await round(shuffled(tasksOf(s), random), warmUpMs);
  for (let r = 0; r < options.warmRounds; r++) {
    for (const s of shuffled(scenarios, random)) {
      const result = await round(shuffled(tasksOf(s), random), options.warmTimeMs);
      for (const [task, ops] of result) samples.get(task)?.push(ops);
      progress(
        `warm round ${r + 1}/${options.warmRounds}: ${s.measure}: ours ${Math.round(result.get(s.ours) ?? 0)} ops/s, ${s.peer.name} ${Math.round(result.get(s.peer) ?? 0)} ops/s`,
      );
    }
  }
}

/** Checks every task once, then the recorded rounds; a row per scenario labelled with its store. */
async function measureStore(figures: Figures, options: RunOptions, scenarios: Scenario[], store: string, inProcess: boolean): Promise<void> {
  const samples = new Map<Task, number[]>();
  // Our handlers write an access-log line per request: building it is counted, the write to this
  // terminal is not (in Lambda it is a pipe write the peers, which log nothing, would not pay either).
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    for (const s of scenarios) {
      for (const task of tasksOf(s)) {
        await task.check();
        samples.set(task, []);
      }
    }
    await rounds(scenarios, samples, options);
  } finally {
    process.stdout.write = write;
  }
  const measured = (task: Task): Measured => ({ name: task.name, summary: summarise(samples.get(task) ?? []), samples: samples.get(task) ?? [] });
  for (const [index, s] of scenarios.entries()) {
    const ours = measured(s.ours);
    const peer = measured(s.peer);
    figures.add({
      section: "warm",
      measure: `${s.measure} [${store}]`,
      unit: "ops/s",
      higherIsBetter: true,
      ours,
      floor: measured(s.floor),
      peer,
      // The bars are the framework's overhead, so on the in-process store; with DynamoDB Local the
      // store's round trips dominate every side, reported without a bar.
      ...(s.barVsPeer && inProcess ? { bar: barOn(`>= ${s.barVsPeer}x ${s.peer.name}`, ours, peer, s.barVsPeer, false) } : {}),
      ...(inProcess ? { profile: () => profileWarm(index, options.outDir) } : {}),
      // A request's whole cost shared out over its records (routing, parsing and execution included).
      ...(s.records ? { note: `ours: ${(1e6 / (ours.summary.median * s.records)).toFixed(1)} µs per record (1 / (ops/s x ${s.records}))` } : {}),
    });
    for (const ref of s.references) {
      figures.add({
        section: "warm",
        measure: `${s.measure} [${store}]: ${ref.name} (reference)`,
        unit: "ops/s",
        higherIsBetter: true,
        ours: measured(ref),
        floor: measured(s.floor),
        peer,
      });
    }
    if (s.withoutMetrics) {
      // What the metrics cost: ours against the same handler with METRICS=off, in the
      // same rounds. The bar on the in-process store, where nothing else hides the line's CPU.
      const off = measured(s.withoutMetrics);
      figures.add({
        section: "warm",
        measure: `${s.measure} [${store}]: metrics on vs off`,
        unit: "ops/s",
        higherIsBetter: true,
        ours,
        floor: off,
        ...(inProcess ? { bar: barOn(">= 0.97x without metrics", ours, off, 0.97, false) } : {}),
      });
    }
    if (s.withTracing) {
      figures.add({
        section: "warm",
        measure: `${s.measure} [${store}]: tracing on vs off`,
        unit: "ops/s",
        higherIsBetter: true,
        ours: measured(s.withTracing),
        floor: { ...ours, name: "tracing off" },
        note: `--param tracing=true: the invocation sampled, its span and its DynamoDB call's exported over OTLP/HTTP to a loopback receiver standing for X-Ray's endpoint before it answers (${s.spans?.() ?? 0} spans received)`,
      });
    }
  }
}

/** The warm scenarios on two stores: in-process (the framework alone), then DynamoDB Local over loopback. */
export async function warmSection(figures: Figures, options: RunOptions): Promise<void> {
  productionEnv();
  await measureStore(figures, options, await warmScenarios(), "in-process store", true);
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  progress("warm: starting DynamoDB Local");
  const db = await startDynamoDbLocal();
  try {
    const prefix = `bench-warm-${process.pid}-`;
    const blog = await dynamoBlog(db.endpoint, prefix);
    const traced = tracedBlog(db.endpoint, prefix);
    const sink = await startOtlpSink();
    try {
      await measureStore(
        figures,
        options,
        await warmScenarios(blog.app, { app: traced.app, endpoint: sink.endpoint, received: sink.received }),
        "DynamoDB Local",
        false,
      );
    } finally {
      blog.close();
      traced.close();
      await sink.close();
    }
  } finally {
    await db.stop();
  }
}
