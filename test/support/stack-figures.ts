import type { Stack } from "./stacks.ts";

/** CloudFormation's hard cap on the resources of one stack. */
export const STACK_CAP = 500;

export interface StackGrowth {
  stack: string;
  resources: number;
  /** Resources the generated models account for, per model (a resource naming several counts once, shared among them). */
  perModel: number;
  /** How many models of the generated kind the stack holds before it reaches the cap. */
  fit: number;
}

/**
 * How each stack that several models share grows with their number, from one packaging of an
 * application with `names` generated models: a resource belongs to the models whose names it
 * mentions (a table, its stream mapping, its nested stack, an alarm on it). A model's own nested
 * stack is left out: another model adds another stack, not resources to that one.
 */
export function stackGrowth(stacks: Stack[], names: string[]): StackGrowth[] {
  const own = new Set(names.map((name) => `${name}sNestedStack`));
  return stacks
    .filter((stack) => !own.has(stack.id))
    .map((stack) => {
      const entries = Object.entries(stack.template.Resources);
      let attributed = 0;
      for (const entry of entries) {
        const text = JSON.stringify(entry);
        if (names.some((name) => text.includes(`"${name}`) || text.includes(`/${name}`))) attributed += 1;
      }
      const perModel = attributed / names.length;
      const base = entries.length - attributed;
      return { stack: stack.id, resources: entries.length, perModel, fit: perModel === 0 ? Infinity : Math.floor((STACK_CAP - base) / perModel) };
    });
}

/** The cells after the first of the docs/deploying.md table row whose first cell is `label`. */
export function documentedRow(page: string, label: string): string[] {
  const row = page.split("\n").find((line) => line.startsWith(`| ${label} |`));
  if (!row) throw new Error(`docs/deploying.md has no row '${label}'`);
  return row
    .split("|")
    .slice(2, -1)
    .map((cell) => cell.trim());
}
