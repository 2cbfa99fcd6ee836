import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bundle } from "./bundle.ts";
import { ROOT } from "./serverless-config.ts";

/**
 * bench/budgets.json: each bundle's size as recorded at an earlier commit (a measured reference,
 * not the bundle measured now), the growth tolerated over it, and a budget for functions added since.
 */
export interface Budgets {
  recordedAt: string;
  tolerance: number;
  sizes: Record<string, number>;
  default: number;
}

export function readBudgets(root = ROOT): Budgets {
  return JSON.parse(readFileSync(join(root, "bench/budgets.json"), "utf8")) as Budgets;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The entry's recorded size (its reference), if it has one. */
export function recordedSize(budgets: Budgets, entry: string): number | undefined {
  return budgets.sizes[entry];
}

/** Recorded size plus the tolerance; `default` for a function with no recorded size. */
export function budgetOf(budgets: Budgets, entry: string): number {
  const recorded = recordedSize(budgets, entry);
  return recorded === undefined ? budgets.default : Math.floor(recorded * (1 + budgets.tolerance));
}

/** What the budget is, in words: against which reference, with what tolerance. */
export function budgetText(budgets: Budgets, entry: string): string {
  const recorded = recordedSize(budgets, entry);
  return recorded === undefined
    ? `<= ${kb(budgets.default)} (default: no recorded size)`
    : `<= ${kb(recorded)} recorded at ${budgets.recordedAt} +${Math.round(budgets.tolerance * 100)}%`;
}

/** Undefined within budget; else what went over, by how much, and what weighs most. */
export function overBudget(built: Bundle, functions: readonly string[], budgets: Budgets): string | undefined {
  const budget = budgetOf(budgets, built.entry);
  if (built.bytes <= budget) return undefined;
  const largest = built.inputs
    .slice(0, 10)
    .map((i) => `    ${kb(i.bytes).padStart(9)}  ${i.path}`)
    .join("\n");
  return [
    `${built.entry} (function${functions.length > 1 ? "s" : ""} ${functions.slice(0, 3).join(", ")}${functions.length > 3 ? `, +${functions.length - 3} more` : ""}) ` +
      `is ${kb(built.bytes)}, over its budget of ${kb(budget)} (${budgetText(budgets, built.entry)}, bench/budgets.json) by ${kb(built.bytes - budget)}.`,
    "  Largest inputs:",
    largest,
    "  If the growth is intended, record the new size in the same change and say why.",
  ].join("\n");
}
