// @ts-check
// The templates a deploy goes through when a table gains or loses more than one index: DynamoDB
// creates or deletes one global secondary index per UpdateTable, so CloudFormation refuses two in
// one stack update ("Cannot perform more than one GSI creation or deletion in a single update")
// and rolls back. Step k is the target template with each table's first k index operations done;
// the last step is the target itself. Each differs from the one before by at most one index per
// table, and CloudFormation finishes an update only once its new index is ACTIVE.
import { indexOps } from "./diff.mjs";
import { tableResources, templateTables } from "./tables.mjs";
/** @import { CfnTemplate, CfnValue } from "../../core/serverless-host.ts" */

/** @param {unknown} value @returns {Record<string, unknown>[]} */
const objects = (value) => (Array.isArray(value) ? value.filter((v) => v !== null && typeof v === "object") : []);

/**
 * A table's indexes after its first `done` operations: the baseline's, without those deleted so
 * far, with those created so far, as the target declares them (its order, then the baseline's).
 * @param {Record<string, unknown>[]} baseline
 * @param {Record<string, unknown>[]} target
 * @param {import("./diff.mjs").IndexOp[]} ops
 * @param {number} done
 */
function indexesAfter(baseline, target, ops, done) {
  const deleted = new Set(ops.slice(0, done).flatMap((o) => (o.op === "delete" ? [o.index] : [])));
  const created = new Set(ops.slice(0, done).flatMap((o) => (o.op === "create" ? [o.index] : [])));
  const pending = new Set(ops.slice(done).map((o) => o.index));
  const byName = (/** @type {Record<string, unknown>} */ i) => String(i.IndexName);
  // An index of the target is there once created, or when no operation touches it.
  const fromTarget = target.filter((i) => created.has(byName(i)) || !pending.has(byName(i)));
  // A baseline index stays while its deletion is to come (or it is the old form of one recreated later).
  const fromBaseline = baseline.filter((i) => !deleted.has(byName(i)) && !fromTarget.some((t) => byName(t) === byName(i)));
  return [...fromTarget, ...fromBaseline];
}

/**
 * The attribute definitions a table's key and indexes use (CloudFormation refuses one no key
 * uses): the baseline's for an attribute a baseline index still there uses (its deletion is to
 * come, and the target may type the attribute anew), else the target's, else the baseline's.
 * @param {Record<string, unknown>} properties
 * @param {Record<string, unknown>[]} indexes
 * @param {Record<string, unknown>[]} baselineIndexes
 * @param {Record<string, unknown>[]} baselineDefinitions
 */
function definitionsFor(properties, indexes, baselineIndexes, baselineDefinitions) {
  /** @param {unknown[]} schemas */
  const names = (schemas) => new Set(schemas.flatMap((schema) => objects(schema).map((k) => String(k.AttributeName))));
  const used = names([properties.KeySchema, ...indexes.map((i) => i.KeySchema)]);
  // indexesAfter keeps the baseline's own objects for the indexes still to be deleted (or recreated).
  const old = names(indexes.filter((i) => baselineIndexes.includes(i)).map((i) => i.KeySchema));
  const target = objects(properties.AttributeDefinitions);
  /** @param {string} name */
  const find = (name) =>
    (old.has(name) ? baselineDefinitions : target).find((d) => d.AttributeName === name) ??
    [...target, ...baselineDefinitions].find((d) => d.AttributeName === name);
  return [...used].flatMap((name) => {
    const definition = find(name);
    return definition ? [definition] : [];
  });
}

/**
 * The templates to deploy in turn to go from `baseline` (what is deployed) to `target`: one when
 * no table has more than one index operation. Only the tables' indexes differ between steps.
 * @template {CfnTemplate} T
 * @param {CfnTemplate[]} baseline the deployed root template (and its nested ones)
 * @param {T} target the root template about to be deployed
 * @returns {T[]}
 */
export function stepTemplates(baseline, target) {
  const before = templateTables(baseline);
  const after = templateTables([target]);
  /** @type {Map<string, { ops: import("./diff.mjs").IndexOp[], baseline: Record<string, unknown> }>} */
  const work = new Map();
  for (const [id, table] of after) {
    const old = before.get(id);
    // A new, renamed, re-keyed table is created (or refused) whole: no index steps.
    if (!old || old.name !== table.name || JSON.stringify(old.key) !== JSON.stringify(table.key)) continue;
    const ops = indexOps(old.indexes, table.indexes);
    const resource = baseline.map((t) => t.Resources?.[id]).find((r) => r !== undefined);
    if (ops.length > 1 && resource?.Properties) work.set(id, { ops, baseline: resource.Properties });
  }
  const count = Math.max(1, ...[...work.values()].map((w) => w.ops.length));
  /** @type {T[]} */
  const steps = [];
  for (let done = 1; done < count; done += 1) {
    /** @type {T} */
    const step = structuredClone(target);
    for (const [id, resource] of tableResources(step)) {
      const table = work.get(id);
      if (!table) continue;
      const baselineIndexes = objects(table.baseline.GlobalSecondaryIndexes);
      const indexes = indexesAfter(baselineIndexes, objects(resource.Properties.GlobalSecondaryIndexes), table.ops, Math.min(done, table.ops.length));
      resource.Properties.AttributeDefinitions = /** @type {CfnValue} */ (
        definitionsFor(resource.Properties, indexes, baselineIndexes, objects(table.baseline.AttributeDefinitions))
      );
      if (indexes.length > 0) resource.Properties.GlobalSecondaryIndexes = /** @type {CfnValue} */ (indexes);
      else delete resource.Properties.GlobalSecondaryIndexes;
    }
    steps.push(step);
  }
  steps.push(target);
  return steps;
}
