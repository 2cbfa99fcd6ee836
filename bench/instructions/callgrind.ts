import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Whether valgrind can be run here (Debian's `valgrind` package; `.ci/run` installs it). */
export async function callgrindAvailable(): Promise<boolean> {
  try {
    await run("valgrind", ["--version"]);
    return true;
  } catch {
    return false;
  }
}

export interface Counted {
  /** Instructions executed in each part of the run, in order: split where `dumpBefore` was entered. */
  parts: number[];
  stdout: string;
}

/** The `summary:`/`totals:` line of one callgrind output file: the instructions it counted. */
export function instructionsIn(text: string): number {
  const match = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!match) throw new Error("a callgrind output without a summary line");
  return Number(match[1]);
}

/**
 * The files of one run in the order their parts ran: `out.1`, `out.2`, … are the dumps taken
 * before each entry into the `--dump-before` function, and `out` (no number) what ran after the
 * last one.
 */
export function partsInOrder(files: readonly string[], base: string): string[] {
  const numbered = files
    .filter((f) => f.startsWith(`${base}.`) && /^\d+$/.test(f.slice(base.length + 1)))
    .sort((a, b) => Number(a.slice(base.length + 1)) - Number(b.slice(base.length + 1)));
  return [...numbered, ...(files.includes(base) ? [base] : [])];
}

/**
 * Runs `node nodeArgs…` under callgrind and counts the instructions it executed (every thread,
 * user space): a count repeatable to a fraction of a percent whatever else the machine runs, where
 * a time on this shared machine moves by 10-30%.
 */
export async function countInstructions(nodeArgs: readonly string[], env: Record<string, string>, dumpBefore?: string): Promise<Counted> {
  const dir = await mkdtemp(join(tmpdir(), "callgrind-"));
  try {
    const { stdout } = await run(
      "valgrind",
      ["--tool=callgrind", `--callgrind-out-file=${join(dir, "out")}`, ...(dumpBefore ? [`--dump-before=${dumpBefore}`] : []), process.execPath, ...nodeArgs],
      { env, maxBuffer: 16 * 1024 * 1024 },
    );
    const files = partsInOrder(await readdir(dir), "out");
    const parts = await Promise.all(files.map(async (f) => instructionsIn(await readFile(join(dir, f), "utf8"))));
    return { parts, stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
