/**
 * The metrics writers, ours (lib/core/metrics.ts) and Powertools' Metrics, publishing the same
 * metric set, measured in one run: at cold start (each on floor (b), timed in the same pinned
 * rounds and counted under callgrind) and warm (per invocation, timed in the same shuffled rounds
 * and counted), then the rule applied (issue 30: Powertools' Metrics if its cold-start cost is
 * within 2 ms, else a writer of our own).
 */
import { execFile } from "node:child_process";
import { availableParallelism } from "node:os";
import { promisify } from "node:util";
import { forEachBounded } from "../../lib/core/concurrency.ts";
import { bundle } from "../build/bundle.ts";
import { measureCold, prepareCold } from "../cold/section.ts";
import { coldStartCore } from "../cold/spawn.ts";
import { startStubDynamoDb } from "../cold/stub-dynamodb.ts";
import { FLOOR_B, FLOOR_B_EMF, FLOOR_B_POWERTOOLS, type Variant } from "../cold/variants.ts";
import { callgrindAvailable, countInstructions } from "../instructions/callgrind.ts";
import { coldCount } from "../instructions/section.ts";
import type { Figures, Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { ruleOf, RULE_MS } from "./rule.ts";

const run = promisify(execFile);
const SECTION = "metrics writers";
const VARIANTS = [FLOOR_B, FLOOR_B_EMF, FLOOR_B_POWERTOOLS];
const WRITERS = ["none", "ours", "powertools"] as const;

const measured = (name: string, samples: number[]): Measured => ({ name, summary: summarise(samples), samples });

/** Per-round differences of two sides measured in the same rounds. */
const differences = (a: readonly number[], b: readonly number[]): number[] => a.map((x, i) => x - (b[i] as number));

/** The children's environment: nothing from this shell but PATH, as a deployed function (no METRICS_FILE: stdout). */
const CHILD_ENV = { PATH: process.env.PATH ?? "", NODE_ENV: "production" };

export async function metricsWritersSection(figures: Figures, options: RunOptions): Promise<void> {
  const coldRounds = options.quick ? options.coldRuns : options.coldRuns * 2;
  // --quick (CI) times both sides once over and counts nothing: the instructions section runs the
  // same callgrind harness there, and a process under callgrind takes a minute on two loaded cores.
  // Warm, Powertools runs some 500 K instructions an invocation: 1,300 of them under callgrind take
  // as long as a cold start does, so fewer than the instructions section's 6,000 + 3,000 requests.
  const counted = options.quick ? { rounds: 0, warmRounds: 0, warmUp: 0, count: 1 } : { rounds: 3, warmRounds: 2, warmUp: 1000, count: 300 };
  const warmTimed = options.quick ? { rounds: 3, perRound: 500 } : { rounds: 15, perRound: 20_000 };
  progress("metrics writers: bundling floor (b) and the two writers on it");
  const prepared = await prepareCold(options.outDir, VARIANTS);
  const child = (await bundle("bench/metrics-writers/warm-child.ts", `${options.outDir}/metrics-writers`)).file;
  const cpu = await coldStartCore();
  const canCount = counted.rounds > 0 && (await callgrindAvailable());
  if (!canCount)
    figures.gap(
      SECTION,
      "counted rows",
      options.quick ? "not in --quick (a full run or --only=metrics-writers counts them)" : "valgrind is not installed (Debian: apt-get install valgrind)",
    );

  // Cold start, timed: the three in shuffled pinned rounds.
  const stub = await startStubDynamoDb();
  const coldTimed = new Map<Variant, number[]>();
  const coldCounted = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  try {
    progress(`metrics writers: cold start, ${coldRounds} rounds (seed ${options.seed}), ${cpu === undefined ? "unpinned" : `on core ${cpu}`}`);
    for (const [v, samples] of await measureCold(prepared, coldRounds, stub.endpoint, options.seed, cpu)) coldTimed.set(v, samples);
    // Cold start, counted: every variant once per round, two at a time.
    const random = seeded(options.seed + 1);
    for (let round = 0; canCount && round < counted.rounds; round++) {
      const counts = new Map<Variant, number>();
      await forEachBounded(shuffled(prepared, random), Math.max(1, availableParallelism()), async (p) => {
        counts.set(p.variant, await coldCount(p, stub.endpoint));
      });
      for (const [v, n] of counts) coldCounted.get(v)?.push(n / 1e6);
      progress(`metrics writers: cold start counted, round ${round + 1}/${counted.rounds} (callgrind)`);
    }
  } finally {
    await stub.close();
  }

  // Warm, timed: one process, the writers interleaved in shuffled rounds.
  const timeArgs = [child, "time", String(warmTimed.rounds), String(warmTimed.perRound), String(options.seed)];
  const command = cpu === undefined ? [process.execPath, ...timeArgs] : ["taskset", "-c", String(cpu), process.execPath, ...timeArgs];
  const { stdout } = await run(command[0] as string, command.slice(1), { env: CHILD_ENV, maxBuffer: 4 * 1024 * 1024 });
  const warmNs = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<(typeof WRITERS)[number], number[]>;
  progress(`metrics writers: warm timed, ${warmTimed.rounds} rounds of ${warmTimed.perRound} invocations each`);
  // Warm, counted: each writer in a process of its own under callgrind, V8 with --predictable.
  const warmCounted: Record<string, number[]> = { none: [], ours: [], powertools: [] };
  for (let round = 0; canCount && round < counted.warmRounds; round++) {
    await forEachBounded([...WRITERS], WRITERS.length, async (writer) => {
      const { parts, stdout: out } = await countInstructions(
        ["--predictable", child, "count", writer, String(counted.warmUp), String(counted.count)],
        CHILD_ENV,
        "uv_getrusage",
      );
      if (!out.includes("done") || parts.length !== 3)
        throw new Error(`metrics writer ${writer} under callgrind: ${parts.length} parts, stdout ${out.slice(0, 200)}`);
      warmCounted[writer]?.push((parts[1] as number) / counted.count);
    });
    progress(`metrics writers: warm counted, round ${round + 1}/${counted.warmRounds} (callgrind)`);
  }

  const timedOf = (v: Variant, name = v.name) => measured(name, coldTimed.get(v) ?? []);
  const countOf = (v: Variant, name = v.name) => measured(name, coldCounted.get(v) ?? []);
  const overB = (map: Map<Variant, number[]>, v: Variant) => summarise(differences(map.get(v) ?? [], map.get(FLOOR_B) ?? [])).median;
  for (const v of [FLOOR_B_EMF, FLOOR_B_POWERTOOLS]) {
    figures.add({
      section: SECTION,
      measure: `cold start, timed: ${v.name}`,
      unit: "ms",
      higherIsBetter: false,
      ours: timedOf(v),
      floor: timedOf(FLOOR_B, "(b)"),
      note: `${overB(coldTimed, v).toFixed(1)} ms over (b) (median of the per-round differences; pinned, same rounds)`,
    });
  }
  // A count's milliseconds at (b)'s own pace in this run: what the instructions a writer adds would
  // cost on a machine that ran nothing else, by the rule's measure.
  const msPerM = timedOf(FLOOR_B).summary.median / countOf(FLOOR_B).summary.median;
  if (canCount) {
    for (const v of [FLOOR_B_EMF, FLOOR_B_POWERTOOLS]) {
      const over = overB(coldCounted, v);
      figures.add({
        section: SECTION,
        measure: `cold start, counted: ${v.name}`,
        unit: "M instructions",
        higherIsBetter: false,
        ours: countOf(v),
        floor: countOf(FLOOR_B, "(b)"),
        note: `${over.toFixed(1)} M instructions over (b) (median of the per-round differences), ${(over * msPerM).toFixed(1)} ms at (b)'s timed pace in this run (${(msPerM * 1000).toFixed(0)} µs per M)`,
      });
    }
  }
  const costOver = (values: Record<string, number[]>, writer: string) => summarise(differences(values[writer] ?? [], values.none ?? [])).median;
  figures.add({
    section: SECTION,
    measure: "warm, timed: one request's metrics published (begin, one DynamoDB call tallied, publish)",
    unit: "ns/invocation",
    higherIsBetter: false,
    ours: measured("ours", warmNs.ours ?? []),
    floor: measured("no writer", warmNs.none ?? []),
    peer: measured("Powertools", warmNs.powertools ?? []),
    note: `${warmTimed.perRound} invocations per writer per round, one process pinned, lines built not written; over no writer: ours ${costOver(warmNs, "ours").toFixed(0)} ns, Powertools ${costOver(warmNs, "powertools").toFixed(0)} ns`,
  });
  if (canCount) {
    const k = (writer: string) => (warmCounted[writer] ?? []).map((n) => n / 1e3);
    figures.add({
      section: SECTION,
      measure: "warm, counted: one request's metrics published (begin, one DynamoDB call tallied, publish)",
      unit: "K instructions/invocation",
      higherIsBetter: false,
      ours: measured("ours", k("ours")),
      floor: measured("no writer", k("none")),
      peer: measured("Powertools", k("powertools")),
      note: `${counted.count} invocations counted after ${counted.warmUp} of warm-up, V8 with --predictable; over no writer: ours ${(costOver(warmCounted, "ours") / 1e3).toFixed(2)} K, Powertools ${(costOver(warmCounted, "powertools") / 1e3).toFixed(2)} K`,
    });
  }
  const timedOver = differences(coldTimed.get(FLOOR_B_POWERTOOLS) ?? [], coldTimed.get(FLOOR_B) ?? []);
  const countedOverMs = canCount ? overB(coldCounted, FLOOR_B_POWERTOOLS) * msPerM : undefined;
  const rule = ruleOf(summarise(timedOver).median, countedOverMs);
  figures.add({
    section: SECTION,
    measure: `rule: Powertools Metrics if its cold start is within ${RULE_MS} ms of floor (b)`,
    unit: "ms over (b)",
    higherIsBetter: false,
    ours: measured("Powertools over (b)", timedOver),
    note: `${rule.text}; picks ${rule.picks === "powertools" ? "Powertools Metrics" : rule.picks === "ours" ? "our writer" : "nothing: timed and counted disagree, the writer in place stays"}`,
  });
}
