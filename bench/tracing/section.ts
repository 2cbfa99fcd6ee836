/**
 * What tracing costs before it is chosen (`--only=tracing`): the GraphQL function cold and warm with
 * tracing off, on (OpenTelemetry, its spans exported over OTLP/HTTP to a loopback receiver standing
 * for X-Ray's endpoint, awaited before the answer), and with `--baseline=DIR` a checkout's function
 * traced the earlier way (subsegments over UDP to a loopback socket standing for the X-Ray daemon).
 * Every variant runs once per round, the order shuffled each round (the cold-start section's rule).
 */
import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureCold, prepareCold, type Prepared } from "../cold/section.ts";
import { coldEnv, coldStartCore } from "../cold/spawn.ts";
import { startStubDynamoDb } from "../cold/stub-dynamodb.ts";
import { GRAPHQL, SAMPLED_HEADER, tracedGraphql, type Variant } from "../cold/variants.ts";
import type { Figures, Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { startOtlpSink } from "../lib/otlp-sink.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { startUdpSink } from "../lib/udp-sink.ts";
import { callgrindAvailable } from "../instructions/callgrind.ts";
import { coldInstructions, warmInstructions } from "./instructions.ts";

const CHILD = fileURLToPath(new URL("./warm-child.mjs", import.meta.url));

/** The median warm request (ms) of one process serving `count` requests after `warmup`. */
async function warmRun(p: Prepared, endpoint: string, resultFile: string, warmup: number, count: number): Promise<number> {
  // LOG_LEVEL=warn: no request log line per request; the metrics lines go to an ignored stdout.
  const env = { ...coldEnv(endpoint, p.variant.env), LOG_LEVEL: "warn" };
  const child = spawn(process.execPath, [CHILD, p.bundle, p.event, resultFile, String(warmup), String(count)], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")).slice(-4000));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`${p.variant.name}: warm child exited ${code}: ${stderr.slice(-2000)}`);
  const result = JSON.parse(await readFile(resultFile, "utf8")) as { status: number; median: number };
  await rm(resultFile);
  if (result.status !== p.variant.status) throw new Error(`${p.variant.name}: warm answer ${result.status}, expected ${p.variant.status}`);
  return result.median;
}

export async function tracingSection(figures: Figures, options: RunOptions): Promise<void> {
  const sink = await startOtlpSink();
  const daemon = await startUdpSink();
  const stub = await startStubDynamoDb();
  try {
    const on = tracedGraphql(sink.endpoint);
    const before: Variant[] = options.baseline
      ? [
          { ...GRAPHQL, name: "graphql function, tracing off, before", root: options.baseline },
          {
            ...GRAPHQL,
            name: "graphql function, tracing on (X-Ray daemon), before",
            root: options.baseline,
            env: { TRACING: "true", AWS_XRAY_DAEMON_ADDRESS: daemon.address, _X_AMZN_TRACE_ID: SAMPLED_HEADER },
          },
        ]
      : [];
    progress("tracing: bundling the GraphQL function" + (options.baseline ? " and the baseline's" : ""));
    // One bundle per tree: the traced variants differ from the untraced ones only in their environment.
    const [off, beforeOff] = await prepareCold(options.outDir, [GRAPHQL, ...before.slice(0, 1)]);
    const prepared: Prepared[] = [off as Prepared, { ...(off as Prepared), variant: on }];
    if (beforeOff) prepared.push(beforeOff, { ...beforeOff, variant: before[1] as Variant });
    const cpu = await coldStartCore();
    progress(`tracing: ${options.coldRuns} cold-start rounds of ${prepared.length} variants`);
    const cold = await measureCold(prepared, options.coldRuns, stub.endpoint, options.seed, cpu);
    const rounds = options.quick ? 2 : 7;
    const [warmup, count] = options.quick ? [50, 100] : [300, 1_000];
    const warm = new Map<Variant, number[]>(prepared.map((p) => [p.variant, []]));
    const random = seeded(options.seed);
    for (let round = 0; round < rounds; round++) {
      for (const p of shuffled(prepared, random))
        warm.get(p.variant)?.push(await warmRun(p, stub.endpoint, join(options.outDir, "tracing-warm.json"), warmup, count));
      progress(`tracing: warm round ${round + 1}/${rounds}`);
    }
    // Counted once each under callgrind, where valgrind is installed (CI installs it).
    const counted = await callgrindAvailable();
    const coldCounts = new Map<Variant, number[]>();
    const warmCounts = new Map<Variant, number[]>();
    if (counted) {
      const [w, c] = options.quick ? [20, 20] : [100, 100];
      for (const p of prepared) {
        progress(`tracing: counting ${p.variant.name} under callgrind`);
        coldCounts.set(p.variant, [(await coldInstructions(p, stub.endpoint)) / 1e6]);
        warmCounts.set(p.variant, [(await warmInstructions(p, stub.endpoint, options.outDir, w, c)) / 1e6]);
      }
    }
    const of = (totals: Map<Variant, number[]>, v: Variant, name = v.name): Measured => ({
      name,
      summary: summarise(totals.get(v) ?? []),
      samples: totals.get(v) ?? [],
    });
    const sent = `${sink.received()} spans received over OTLP/HTTP`;
    const rows: [string, Variant, Variant, string][] = [
      ["tracing on vs off", on, GRAPHQL, "tracing off"],
      ...(before.length === 2
        ? ([
            ["tracing on (OpenTelemetry) vs on (X-Ray daemon, before)", on, before[1], "X-Ray daemon, before"],
            ["tracing off vs off, before", GRAPHQL, before[0], "off, before"],
          ] as [string, Variant, Variant, string][])
        : []),
    ];
    for (const [what, ours, floor, floorName] of rows) {
      figures.add({
        section: "tracing",
        measure: `cold start, graphql function: ${what}`,
        unit: "ms",
        higherIsBetter: false,
        ours: of(cold, ours),
        floor: of(cold, floor, floorName),
        note: `interleaved with the other tracing variants; ${sent}${before.length ? `, ${daemon.received()} subsegments over UDP` : ""}`,
      });
      figures.add({
        section: "tracing",
        measure: `warm request, graphql function: ${what}`,
        unit: "ms",
        higherIsBetter: false,
        ours: of(warm, ours),
        floor: of(warm, floor, floorName),
        note: `median of ${count} requests after ${warmup} per process, one process per variant per round; the traced ones await their export`,
      });
      if (!counted) continue;
      figures.add({
        section: "tracing",
        measure: `cold start instructions, graphql function: ${what}`,
        unit: "M instr",
        higherIsBetter: false,
        ours: of(coldCounts, ours),
        floor: of(coldCounts, floor, floorName),
        note: "one cold start each under callgrind: every thread, from Node's start to the answer",
      });
      figures.add({
        section: "tracing",
        measure: `warm request instructions, graphql function: ${what}`,
        unit: "M instr",
        higherIsBetter: false,
        ours: of(warmCounts, ours),
        floor: of(warmCounts, floor, floorName),
        note: `per request, over ${options.quick ? 20 : 100} requests after as many, under callgrind (--predictable); the traced ones include their export's HTTP request`,
      });
    }
  } finally {
    await stub.close();
    await sink.close();
    await daemon.close();
  }
}
