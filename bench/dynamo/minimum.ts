import { Kind, parse, type FieldNode, type SelectionSetNode } from "graphql";
import type { Application } from "../../lib/core/application.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";

/** DynamoDB's own limits that set how many calls a batched read needs. */
const BATCH_GET_MAX = 100;
const PARTIQL_IN_MAX = 50;

export interface Minimum {
  calls: number;
  /** How the figure was derived, e.g. "1 Scan page + author: 1 BatchGetItem (5 keys)". */
  why: string;
}

const batches = (n: number, size: number) => (n === 0 ? 0 : Math.ceil(n / size));

/** A read by the full primary key: one GetItem. */
export const byKey = (): Minimum => ({ calls: 1, why: "1 GetItem (full key)" });

/** A listing: one Query (or Scan) per page of results. */
export const listing = (pages: number, how: "Query" | "Scan"): Minimum => ({ calls: pages, why: `${pages} ${how} page${pages === 1 ? "" : "s"}` });

/** A write whose permission depends on the stored record: the read, then the write. */
export const checkedWrite = (): Minimum => ({ calls: 2, why: "1 GetItem (the policy reads the stored record) + 1 write" });

/** A conditional put (existence guard in the same call). */
export const put = (): Minimum => ({ calls: 1, why: "1 PutItem (condition attribute_not_exists)" });

function fieldsOf(selection: SelectionSetNode | undefined): FieldNode[] {
  return (selection?.selections ?? []).filter((s): s is FieldNode => s.kind === Kind.FIELD);
}

type Row = Record<string, unknown>;

/**
 * The fewest calls a GraphQL list query can make, from its shape: the listing's pages, then per
 * relation selected on the results, batched reads over the distinct keys the page holds
 * (belongs-to: BatchGetItem per 100 keys; contains: one PartiQL IN per 50 parents; many-to-many:
 * the join rows per 50 parents, then the targets per 100 keys). `results` are the stored records
 * the page holds, from which the distinct keys are counted; `joinRows` reads the join rows a
 * many-to-many needs (after the operation's calls were counted).
 */
export async function listWithRelations(
  app: Application,
  info: ModelInfo,
  query: string,
  results: Row[],
  joinRows: (through: ModelInfo, from: string, parents: unknown[]) => Promise<Row[]>,
): Promise<Minimum> {
  const root = fieldsOf(parse(query).definitions.flatMap((d) => ("selectionSet" in d && d.selectionSet ? [d.selectionSet] : []))[0]);
  const page = fieldsOf(root[0]?.selectionSet).find((f) => f.name.value === "results");
  let calls = 1;
  const why = ["1 listing page"];
  const parents = results.map((r) => r[info.keyFields[0] as string]);
  for (const field of fieldsOf(page?.selectionSet)) {
    const relation = info.relations[field.name.value];
    if (!relation) continue;
    if (relation.kind === "belongsTo") {
      const keys = new Set(results.map((r) => JSON.stringify(r[field.name.value] ?? null))).size;
      const n = batches(keys, BATCH_GET_MAX);
      calls += n;
      why.push(`${field.name.value}: ${n} BatchGetItem (${keys} keys)`);
    } else if (relation.kind === "contains") {
      const n = batches(parents.length, PARTIQL_IN_MAX);
      calls += n;
      why.push(`${field.name.value}: ${n} ExecuteStatement (IN over ${parents.length} parents)`);
    } else {
      const through = app.model(relation.through().name);
      if (!through) continue;
      const rows = await joinRows(through, relation.from, parents);
      const targets = new Set(rows.map((r) => JSON.stringify(r[relation.to]))).size;
      const n = batches(parents.length, PARTIQL_IN_MAX) + batches(targets, BATCH_GET_MAX);
      calls += n;
      why.push(`${field.name.value}: ${n} (join rows of ${parents.length} parents, ${targets} targets)`);
    }
  }
  return { calls, why: why.join(" + ") };
}
