import { join } from "node:path";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { budgetText, kb, overBudget, readBudgets, recordedSize } from "./budget.ts";
import { bundle, byPackage, type Bundle } from "./bundle.ts";
import { functionEntries } from "./serverless-config.ts";

const size = (name: string, built: Bundle): Measured => ({ name, summary: summarise([built.bytes]) });

/** Minified size of every function bundle, against the bare+DynamoDB floor and yoga, with budgets. */
export async function bundleSection(figures: Figures, options: RunOptions): Promise<void> {
  progress("bundle size: building every function as serverless package does");
  const dir = join(options.outDir, "size");
  const entries = functionEntries();
  const [floor, yoga] = await Promise.all([bundle("bench/fixtures/bare-dynamodb.ts", dir), bundle("bench/fixtures/yoga.ts", dir)]);
  const budgets = readBudgets();
  for (const [entry, functions] of entries) {
    const built = await bundle(entry, dir);
    const recorded = recordedSize(budgets, entry);
    const label = functions.length > 1 ? `${entry} (${functions.length} functions)` : `${entry} (${functions[0] ?? "?"})`;
    figures.add({
      section: "bundle size",
      measure: label,
      unit: "KB",
      higherIsBetter: false,
      ours: size(label, built),
      floor: size("bare+DynamoDB", floor),
      ...(entry === "functions/graphql.ts" ? { peer: size("yoga", yoga) } : {}),
      // Against the size recorded at an earlier commit (bench/budgets.json), not this build's own.
      bar: barOn(budgetText(budgets, entry), size(label, built), recorded ?? budgets.default, recorded === undefined ? 1 : 1 + budgets.tolerance, true),
    });
    const line = (i: { path: string; bytes: number }) => `${kb(i.bytes).padStart(9)}  ${i.path}`;
    figures.detail(`${label}: ${kb(built.bytes)}; ten largest inputs, then the largest packages`, [
      ...built.inputs.slice(0, 10).map(line),
      "by package:",
      ...byPackage(built.inputs).slice(0, 8).map(line),
    ]);
    const over = overBudget(built, functions, budgets);
    if (over) progress(over);
  }
}
