import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { overBudget, readBudgets } from "../../bench/build/budget.ts";
import { bundle, type Bundle } from "../../bench/build/bundle.ts";
import { pluginBundle } from "../../bench/build/plugin-bundle.ts";
import { functionEntries } from "../../bench/build/serverless-config.ts";

const out = await mkdtemp(join(tmpdir(), "bundle-size-"));
afterAll(() => rm(out, { recursive: true, force: true }));

const entries = [...functionEntries()];
const built = new Map<string, Bundle>();

describe("function bundles as serverless package builds them", () => {
  it("are byte-identical to serverless-esbuild's own bundling step (same options from serverless.yml)", async () => {
    const ours = await bundle("functions/graphql.ts", join(out, "ours"));
    built.set(ours.entry, ours);
    const theirs = await pluginBundle("functions/graphql.ts", join(out, "plugin"));
    expect((await readFile(theirs)).equals(await readFile(ours.file)), "bench/build/options.ts no longer matches serverless-esbuild").toBe(true);
  }, 120_000);

  it.each(entries)(
    "%s stays within its size budget (bench/budgets.json)",
    async (entry, functions) => {
      const result = built.get(entry) ?? (await bundle(entry, join(out, "ours")));
      const failure = overBudget(result, functions, readBudgets());
      // The message names the function, its size, the budget and the largest inputs.
      expect(failure, failure).toBeUndefined();
    },
    120_000,
  );

  it("explains an overrun by name, size, budget and largest inputs", () => {
    const fake: Bundle = {
      entry: "functions/heavy.ts",
      file: "heavy.mjs",
      bytes: 2_000_000,
      inputs: [{ path: "node_modules/huge/index.js", bytes: 1_500_000 }],
    };
    const message = overBudget(fake, ["heavy"], { recordedAt: "abc", tolerance: 0.05, sizes: {}, default: 1_000_000 }) ?? "";
    expect(message).toContain("functions/heavy.ts (function heavy)");
    expect(message).toContain("1953.1 KB, over its budget of 976.6 KB");
    expect(message).toContain("node_modules/huge/index.js");
  });

  it("budgets a bundle against its size recorded at an earlier commit, plus the tolerance", () => {
    const budgets = { recordedAt: "abc", tolerance: 0.05, sizes: { "functions/x.ts": 1000 }, default: 1_000_000 };
    const at = (bytes: number) => overBudget({ entry: "functions/x.ts", file: "x.mjs", bytes, inputs: [] }, ["x"], budgets);
    expect(at(1050)).toBeUndefined();
    expect(at(1051)).toContain("recorded at abc +5%");
  });
});
