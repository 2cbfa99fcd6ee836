// @ts-check
// The plan as the developer reads it, from `webda plan` and before a `serverless deploy`.
import { blocking } from "./diff.mjs";
/** @import { Plan } from "./diff.mjs" */

/**
 * @param {Plan} plan
 * @param {{ deploy: string }} options `deploy`: the command that applies a step
 * @returns {string[]}
 */
export function renderPlan(plan, { deploy }) {
  /** @type {string[]} */
  const lines = [];
  const changed = plan.tables.filter((t) => t.kind !== "unchanged");
  if (changed.length === 0 && plan.refusals.length === 0) return ["tables: no change"];
  for (const table of changed) {
    const refusal = plan.refusals.find((r) => r.id === table.id);
    const state = refusal ? (refusal.accepted ? " (accepted)" : " (refused)") : "";
    lines.push(`${table.id} (${table.table}): ${table.kind}${table.renamedTo ? `, renamed to ${table.renamedTo}?` : ""}${state}`);
    table.indexOps.forEach((op, i) => lines.push(`  step ${i + 1}: ${op.op} index ${op.index}: ${op.why}`));
    for (const note of table.notes) lines.push(`  ${note}`);
  }
  const refused = blocking(plan);
  const accepted = plan.refusals.filter((r) => r.accepted);
  for (const refusal of accepted)
    lines.push(`accepted ${refusal.kind} of ${refusal.table}: ${refusal.message}`, ...refusal.commands.slice(1).map((c) => `  then: ${c}`));
  if (refused.length > 0) {
    lines.push("", `refused: ${refused.length} change(s) a deploy cannot carry out:`);
    for (const refusal of refused) lines.push(`- ${refusal.message}`, ...refusal.commands.map((c) => `    run: ${c}`));
  } else if (plan.steps > 1) {
    lines.push(
      "",
      `${plan.steps} steps: each \`${deploy}\` applies the next (one index per table, CloudFormation waiting for it to be ACTIVE); queries needing an index still building answer 503 UNAVAILABLE with Retry-After`,
    );
  } else lines.push("", "1 step: one deploy applies it");
  return lines;
}
