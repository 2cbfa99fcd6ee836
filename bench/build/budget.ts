import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bundle } from "./bundle.ts";
import { ROOT } from "./serverless-config.ts";

/** Minified bytes per handler file; `default` covers a function added since the budgets were set. */
export type Budgets = Record<string, number>;

export function readBudgets(root = ROOT): Budgets {
  return JSON.parse(readFileSync(join(root, "bench/budgets.json"), "utf8")) as Budgets;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function budgetOf(budgets: Budgets, entry: string): number {
  const budget = budgets[entry] ?? budgets.default;
  if (budget === undefined) throw new Error(`bench/budgets.json has no budget for ${entry} and no default`);
  return budget;
}

/** Undefined within budget; else what went over, by how much, and what weighs most. */
export function overBudget(built: Bundle, functions: readonly string[], budgets: Budgets): string | undefined {
  const budget = budgetOf(budgets, built.entry);
  if (built.bytes <= budget) return undefined;
  const largest = built.inputs.slice(0, 10).map((i) => `    ${kb(i.bytes).padStart(9)}  ${i.path}`).join("\n");
  return [
    `${built.entry} (function${functions.length > 1 ? "s" : ""} ${functions.slice(0, 3).join(", ")}${functions.length > 3 ? `, +${functions.length - 3} more` : ""}) ` +
      `is ${kb(built.bytes)}, over its budget of ${kb(budget)} (bench/budgets.json) by ${kb(built.bytes - budget)}.`,
    "  Largest inputs:",
    largest,
    "  If the growth is intended, raise the budget in the same change and say why.",
  ].join("\n");
}
