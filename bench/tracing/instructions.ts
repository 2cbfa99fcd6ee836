/**
 * The tracing variants counted in instructions under callgrind (bench/instructions): a cold start
 * and a warm request each, where this shared machine's load moves the timed rows by tens of
 * percent. One count per variant: a count repeats to a fraction of a percent.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Prepared } from "../cold/section.ts";
import { coldEnv } from "../cold/spawn.ts";
import { checkAnswer, type Variant } from "../cold/variants.ts";
import { countInstructions } from "../instructions/callgrind.ts";
import { UNDER_CALLGRIND } from "../instructions/section.ts";

const COLD_CHILD = fileURLToPath(new URL("../cold/child.mjs", import.meta.url));
const WARM_CHILD = fileURLToPath(new URL("./warm-child.mjs", import.meta.url));
/** The export's own timeout too: under callgrind the child reads the receiver's answer fifty times slower. */
const SLOW = { ...UNDER_CALLGRIND, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "120000", LOG_LEVEL: "warn" };

export async function coldInstructions(p: Prepared, endpoint: string): Promise<number> {
  const { parts, stdout } = await countInstructions([COLD_CHILD, p.bundle, p.event], coldEnv(endpoint, { ...p.variant.env, ...SLOW }));
  const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { status?: number; body?: string };
  checkAnswer(p.variant, answer.status, answer.body, " under callgrind");
  return parts.reduce((sum, n) => sum + n, 0);
}

/** Instructions per warm request: the stretch between the child's two process.cpuUsage() calls. */
export async function warmInstructions(p: Prepared, endpoint: string, outDir: string, warmup: number, count: number): Promise<number> {
  const resultFile = join(outDir, "tracing-warm-callgrind.json");
  const { parts } = await countInstructions(
    ["--predictable", WARM_CHILD, p.bundle, p.event, resultFile, String(warmup), String(count)],
    coldEnv(endpoint, { ...p.variant.env, ...SLOW }),
    "uv_getrusage",
  );
  const result = JSON.parse(await readFile(resultFile, "utf8")) as { status: number };
  await rm(resultFile);
  if (result.status !== (p.variant as Variant).status) throw new Error(`${p.variant.name} under callgrind: answered ${result.status}`);
  if (parts.length !== 3) throw new Error(`${p.variant.name} under callgrind: ${parts.length} parts, expected 3`);
  return (parts[1] as number) / count;
}
