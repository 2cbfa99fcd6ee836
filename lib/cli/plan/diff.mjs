// @ts-check
// What deploying a template changes in the tables of what is deployed (docs/changing-a-deployed-application.md):
// per table, the indexes created and deleted (one per table per update: DynamoDB refuses two in
// one UpdateTable, and CloudFormation rolls the stack back), the stream and TTL changes, and the
// changes no update can carry out (a key change, a table replaced, renamed or removed), each with
// what the developer runs instead.
import { keyText } from "./tables.mjs";
/** @import { Index, Key, TableSpec } from "./tables.mjs" */

/**
 * @typedef {{ op: "create" | "delete", index: string, why: string }} IndexOp
 * @typedef {"key" | "replaced" | "removed" | "ttl" | "not-retained"} RefusalKind
 * @typedef {{ id: string, table: string, kind: RefusalKind, message: string, commands: string[], acceptable: boolean, accepted: boolean }} Refusal
 * @typedef {{
 *   id: string,
 *   table: string,
 *   kind: "added" | "removed" | "changed" | "unchanged",
 *   indexOps: IndexOp[],
 *   notes: string[],
 *   renamedTo?: string,
 * }} TableChange
 * @typedef {{ tables: TableChange[], refusals: Refusal[], steps: number }} Plan
 * @typedef {{ accept?: string[], deploy?: string, copy?: string, acceptCommand?: (id: string) => string }} PlanOptions
 */

/** @param {Key} a @param {Key} b */
const sameKey = (a, b) => keyText(a) === keyText(b);
/** @param {Index} a @param {Index} b */
const sameIndex = (a, b) => sameKey(a.key, b.key) && a.projection === b.projection;

/**
 * The index operations that turn `before`'s indexes into `after`'s, deletions first (a changed
 * index is deleted, then created again under its name).
 * @param {Index[]} before
 * @param {Index[]} after
 * @returns {IndexOp[]}
 */
export function indexOps(before, after) {
  /** @type {IndexOp[]} */
  const deletes = [];
  /** @type {IndexOp[]} */
  const creates = [];
  for (const old of before) {
    const next = after.find((i) => i.name === old.name);
    if (!next) deletes.push({ op: "delete", index: old.name, why: `no longer declared (was ${keyText(old.key)})` });
    else if (!sameIndex(old, next)) {
      deletes.push({
        op: "delete",
        index: old.name,
        why: `its key or projection changes (${keyText(old.key)} -> ${keyText(next.key)}): deleted, then created again`,
      });
      creates.push({ op: "create", index: next.name, why: `${keyText(next.key)}, recreated` });
    }
  }
  for (const next of after) if (!before.some((i) => i.name === next.name)) creates.push({ op: "create", index: next.name, why: keyText(next.key) });
  return [...deletes, ...creates];
}

/**
 * Compares the deployed (or baseline) tables with those about to be deployed.
 * @param {Map<string, TableSpec>} before
 * @param {Map<string, TableSpec>} after
 * @param {PlanOptions} [options] `accept`: logical ids whose refusable change the developer accepts
 *   (a removed or renamed model's table left behind, to copy); `deploy`, `copy`: the commands named.
 * @returns {Plan}
 */
export function planTables(before, after, options = {}) {
  const accept = new Set(options.accept ?? []);
  const deploy = options.deploy ?? "serverless deploy";
  const copy = options.copy ?? "npx webda db copy";
  /** @type {TableChange[]} */
  const tables = [];
  /** @type {Refusal[]} */
  const refusals = [];
  /** @param {string} id @param {string} table @param {RefusalKind} kind @param {string} message @param {string[]} commands @param {boolean} acceptable */
  const refuse = (id, table, kind, message, commands, acceptable) =>
    refusals.push({ id, table, kind, message, commands, acceptable, accepted: acceptable && accept.has(id) });
  const acceptCommand = options.acceptCommand ?? ((/** @type {string} */ id) => `${deploy} --param acceptTableChanges=${id}`);

  const added = [...after.values()].filter((t) => !before.has(t.id));
  for (const old of before.values()) {
    const next = after.get(old.id);
    if (!next) {
      // The one table of the same key that appears as this one goes is the model's new name,
      // likely; with several (uuid keys are common), naming one would be a guess.
      const heirs = added.filter((t) => sameKey(t.key, old.key));
      const heir = heirs.length === 1 ? heirs[0] : undefined;
      const target = heir?.name ?? "<its new table>";
      tables.push({ id: old.id, table: old.name, kind: "removed", indexOps: [], notes: [], ...(heir ? { renamedTo: heir.name } : {}) });
      if (!old.retained) {
        refuse(
          old.id,
          old.name,
          "not-retained",
          `${old.name} leaves the stack without DeletionPolicy and UpdateReplacePolicy Retain: CloudFormation would delete it and its records`,
          [`give ${old.id} DeletionPolicy: Retain and UpdateReplacePolicy: Retain, deploy, then plan again`],
          false,
        );
        continue;
      }
      refuse(
        old.id,
        old.name,
        "removed",
        heir
          ? `${old.name} leaves the stack and ${heir.name} (same key, ${keyText(old.key)}) arrives: a renamed model? CloudFormation keeps ${old.name} (Retain) and creates ${heir.name} empty: its records are no longer served until copied`
          : `${old.name} leaves the stack (a removed or renamed model): CloudFormation keeps it (Retain) with its records, which nothing serves any more`,
        [acceptCommand(old.id), `${copy} --from ${old.name} --to ${target}   (after the deploy; keeps ${old.name} until --drop-source)`],
        true,
      );
      continue;
    }
    /** @type {string[]} */
    const notes = [];
    if (old.name !== next.name) {
      // A new name is a replacement: created anew, the old one kept (UpdateReplacePolicy Retain).
      refuse(
        old.id,
        old.name,
        "replaced",
        old.retained
          ? `${old.id} is renamed ${old.name} -> ${next.name}: CloudFormation replaces it, creating ${next.name} empty and keeping ${old.name} (Retain) with its records`
          : `${old.id} is renamed ${old.name} -> ${next.name}: CloudFormation replaces it and, without UpdateReplacePolicy Retain, deletes ${old.name} and its records`,
        old.retained
          ? [acceptCommand(old.id), `${copy} --from ${old.name} --to ${next.name}   (after the deploy; keeps ${old.name} until --drop-source)`]
          : [`give ${old.id} DeletionPolicy: Retain and UpdateReplacePolicy: Retain under its old name, deploy, then plan again`],
        old.retained,
      );
      tables.push({ id: old.id, table: next.name, kind: "changed", indexOps: [], notes: [`replaced: ${old.name} -> ${next.name}`] });
      continue;
    }
    if (!sameKey(old.key, next.key)) {
      // DynamoDB cannot change a key; CloudFormation cannot replace a table it names.
      refuse(
        old.id,
        old.name,
        "key",
        `${old.name}: its key changes (${keyText(old.key)} -> ${keyText(next.key)}). DynamoDB cannot change a table's key and CloudFormation cannot replace a table of a fixed name: the records must move to a new table`,
        [
          `give the model a new name (a new table; \`static plural\` keeps its REST routes), then ${acceptCommand(old.id)}`,
          `${copy} --from ${old.name} --to <the new table>   (after the deploy; keeps ${old.name} until --drop-source)`,
        ],
        false,
      );
      tables.push({ id: old.id, table: old.name, kind: "changed", indexOps: [], notes: [`key: ${keyText(old.key)} -> ${keyText(next.key)}`] });
      continue;
    }
    if (old.stream !== next.stream) {
      notes.push(
        next.stream === undefined
          ? `stream turned off (${old.stream}): its readers stop`
          : old.stream === undefined
            ? `stream turned on (${next.stream})`
            : `stream view ${old.stream} -> ${next.stream}: a new stream (new ARN) replaces the old; records not yet read from the old are not delivered`,
      );
    }
    if (old.ttl !== next.ttl) {
      if (old.ttl !== undefined && next.ttl !== undefined) {
        // DynamoDB changes a TTL attribute only by turning TTL off, and refuses another change for about an hour.
        refuse(
          old.id,
          old.name,
          "ttl",
          `${old.name}: its TTL attribute changes (${old.ttl} -> ${next.ttl}): DynamoDB must turn TTL off first and refuses another TTL change on the table for about an hour`,
          [`deploy with TTL off on ${old.id}, wait an hour, then deploy ${next.ttl}`],
          false,
        );
      } else notes.push(next.ttl === undefined ? `TTL off (was ${old.ttl})` : `TTL on ${next.ttl}`);
    }
    if (!old.retained && next.retained) notes.push("DeletionPolicy and UpdateReplacePolicy become Retain");
    const ops = indexOps(old.indexes, next.indexes);
    tables.push({ id: old.id, table: old.name, kind: ops.length > 0 || notes.length > 0 ? "changed" : "unchanged", indexOps: ops, notes });
  }
  for (const table of added) {
    tables.push({
      id: table.id,
      table: table.name,
      kind: "added",
      indexOps: [],
      notes: [`created with ${table.indexes.length} index(es), key ${keyText(table.key)}`],
    });
  }
  // Each table's index operations go one per update; the tables move in parallel.
  const steps = Math.max(1, ...tables.map((t) => t.indexOps.length));
  return { tables, refusals, steps };
}

/**
 * The refusals that stop a deploy: those not accepted (a key change or a TTL attribute change never is).
 * @param {Plan} plan
 */
export const blocking = (plan) => plan.refusals.filter((r) => !r.accepted);
