export interface RunOptions {
  quick: boolean;
  /** Fresh processes per cold-start variant. */
  coldRuns: number;
  /** Repeated tinybench rounds per warm scenario, and the time each task gets per round. */
  warmRounds: number;
  warmTimeMs: number;
  /** Subscriber counts for the fan-out section. */
  fanoutSizes: number[];
  fanoutRepeats: number;
  /** Posts tables the scale section grows through, and the timed runs of each request per size. */
  scaleSizes: number[];
  scaleRepeats: number;
  /** Sections to run; all when empty. */
  only: string[];
  /** Sections not to run (`--skip=a,b`), whatever `only` says. */
  skip: string[];
  /** Where bundles, events and profiles go (`--out=DIR`; bench/out by default). */
  outDir: string;
  /** Seeds the order of every round in every section (bench/lib/order.ts); `--seed=N` replays one. */
  seed: number;
  /** Whether a run of `--only` sections rewrites bench/README.md's figures block (`--readme`). */
  readme: boolean;
  /** Whether to run on another Node major than the functions' runtime (`--any-node`). */
  anyNode: boolean;
  /** A checkout of an earlier commit (`--baseline=DIR`): its functions are cold-started beside ours. */
  baseline?: string;
}

export function runOptions(argv: readonly string[]): RunOptions {
  const quick = argv.includes("--quick");
  const baseline = argv.find((a) => a.startsWith("--baseline="))?.slice("--baseline=".length);
  const seedArg = argv.find((a) => a.startsWith("--seed="))?.slice("--seed=".length);
  const listed = (flag: string): string[] => argv.filter((a) => a.startsWith(flag)).flatMap((a) => a.slice(flag.length).split(","));
  const only = listed("--only=");
  const skip = listed("--skip=");
  return {
    quick,
    coldRuns: quick ? 2 : 15,
    warmRounds: quick ? 1 : 5,
    warmTimeMs: quick ? 50 : 400,
    fanoutSizes: quick ? [100] : [100, 1_000, 10_000],
    fanoutRepeats: quick ? 1 : 3,
    scaleSizes: quick ? [1_000, 2_000] : [1_000, 10_000, 100_000],
    scaleRepeats: quick ? 2 : 7,
    only,
    skip,
    seed: seedArg !== undefined ? Number(seedArg) : Date.now() % 1_000_000,
    outDir: argv.find((a) => a.startsWith("--out="))?.slice("--out=".length) || "bench/out",
    readme: argv.includes("--readme"),
    anyNode: argv.includes("--any-node"),
    ...(baseline ? { baseline } : {}),
  };
}
