/** Issue 30's rule: Powertools' Metrics if its cold-start cost is within 2 ms, else a writer of our own. */
export const RULE_MS = 2;

export interface RuleVerdict {
  picks: "powertools" | "ours" | "undecided";
  text: string;
}

/**
 * The rule applied to Powertools' cold-start cost over floor (b), timed (median of the paired
 * rounds' differences) and, where counted, its instructions at (b)'s pace: the two must agree,
 * since a time on a shared machine moves with the neighbours and a count misses what costs time
 * without instructions.
 */
export function ruleOf(timedMs: number, countedMs: number | undefined): RuleVerdict {
  const within = (ms: number) => ms <= RULE_MS;
  const text = `timed ${timedMs.toFixed(1)} ms${countedMs === undefined ? "" : `, counted ${countedMs.toFixed(1)} ms`} over (b) against ${RULE_MS} ms`;
  const verdicts = [timedMs, ...(countedMs === undefined ? [] : [countedMs])].map(within);
  if (verdicts.every((v) => v)) return { picks: "powertools", text };
  if (verdicts.every((v) => !v)) return { picks: "ours", text };
  return { picks: "undecided", text };
}
