import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callgrindAvailable, countInstructions, instructionsIn, partsInOrder } from "../../bench/instructions/callgrind.ts";

describe("reading callgrind's output", () => {
  it("orders a run's dumps as they were taken, the unnumbered file (after the last dump) last", () => {
    expect(partsInOrder(["out", "out.10", "out.2", "out.1", "other.3", "out.x"], "out")).toEqual(["out.1", "out.2", "out.10", "out"]);
  });

  it("reads the instruction total of a summary or totals line, and refuses a file without one", () => {
    expect(instructionsIn("events: Ir\nsummary: 123456789\n")).toBe(123456789);
    expect(instructionsIn("events: Ir\nfn=main\n1 5\ntotals: 42\n")).toBe(42);
    expect(() => instructionsIn("events: Ir\n")).toThrow(/summary/);
  });
});

// The bench's instruction rows rest on two things this checks with valgrind itself: process.cpuUsage()
// splits a run where the section expects, and the stretch between two calls counts the work done
// there (twice the work, about twice the count), not the process's start-up.
describe("counting a stretch of a node process under callgrind", () => {
  it("splits at process.cpuUsage() and counts the work between the two calls", async () => {
    expect(await callgrindAvailable(), "valgrind is not installed (Debian: apt-get install valgrind; .ci/run installs it)").toBe(true);
    const dir = await mkdtemp(join(tmpdir(), "callgrind-test-"));
    const script = join(dir, "work.mjs");
    await writeFile(
      script,
      [
        "const n = Number(process.argv[2]);",
        "let x = 0;",
        "process.cpuUsage();",
        "for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003;",
        "process.cpuUsage();",
        "console.log(`done ${x}`);",
      ].join("\n"),
    );
    const env = { PATH: process.env.PATH ?? "" };
    const small = await countInstructions(["--predictable", script, "2000000"], env, "uv_getrusage");
    const large = await countInstructions(["--predictable", script, "4000000"], env, "uv_getrusage");
    expect(small.stdout).toMatch(/^done \d+/);
    expect(small.parts).toHaveLength(3);
    expect(large.parts).toHaveLength(3);
    const [startSmall, loopSmall] = small.parts as [number, number, number];
    const [startLarge, loopLarge] = large.parts as [number, number, number];
    // The same start-up either way, to within a percent; the loop's count doubles with its length.
    expect(Math.abs(startLarge - startSmall) / startSmall).toBeLessThan(0.01);
    expect(loopLarge / loopSmall).toBeGreaterThan(1.8);
    expect(loopLarge / loopSmall).toBeLessThan(2.2);
  }, 120_000);
});
