// One process serving the executor A/B (bench/executor/section.ts) on one store, in one of two modes:
// `time`: every scenario's two handlers timed by tinybench in paired rounds (the scenarios and the
// two sides in an order shuffled every round, after one unrecorded warm-up round), ops/s per round
// printed as JSON; `count`: one handler's request served `warmUp` times, then `count` more between
// two process.cpuUsage() calls, where the parent has callgrind split its count.
import { seeded, shuffled } from "../lib/order.ts";
import { productionEnv } from "../warm/production-env.ts";
import { round } from "../warm/round.ts";
import type { Task } from "../warm/tasks.ts";
import { blogFor } from "./blog.ts";
import { executorScenarios, VARIANTS } from "./scenarios.ts";

export interface Timed {
  /** ops/s per recorded round, by scenario and then variant. */
  [measure: string]: Record<string, number[]>;
}

const [mode, store, ...rest] = process.argv.slice(2);
productionEnv();
const scenarios = await executorScenarios(await blogFor(store ?? "memory"));
// The handlers' access-log lines are built, not written (as in the warm section).
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
const sides = (s: (typeof scenarios)[number]): Task[] => [s.ours, s.graphqlJs];
for (const s of scenarios) for (const task of sides(s)) await task.check();

if (mode === "time") {
  const [seed, rounds, timeMs, warmUpMs] = rest.map(Number) as [number, number, number, number];
  const random = seeded(seed);
  const timed: Timed = Object.fromEntries(scenarios.map((s) => [s.measure, Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]]))]));
  for (const s of shuffled(scenarios, random)) await round(shuffled(sides(s), random), warmUpMs);
  for (let r = 0; r < rounds; r++) {
    for (const s of shuffled(scenarios, random)) {
      const result = await round(shuffled(sides(s), random), timeMs);
      for (const [task, ops] of result) timed[s.measure]?.[task.name]?.push(ops);
    }
  }
  process.stdout.write = write;
  process.stdout.write(`${JSON.stringify(timed)}\n`);
} else {
  const [measure, variant, warmUp, count] = rest;
  const scenario = scenarios.find((s) => s.measure === measure);
  const task = variant === VARIANTS[0] ? scenario?.ours : scenario?.graphqlJs;
  if (!task) throw new Error(`no task "${variant}" in scenario "${measure}"`);
  for (let i = 0; i < Number(warmUp); i++) await task.run();
  // The parent runs callgrind with --dump-before=uv_getrusage: these two calls bound the counted part.
  process.cpuUsage();
  for (let i = 0; i < Number(count); i++) await task.run();
  process.cpuUsage();
  process.stdout.write = write;
  process.stdout.write("done\n");
}
// The DynamoDB client keeps sockets open: the parent reads the answer at exit.
process.exit(0);
