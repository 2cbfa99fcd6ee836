import type { TableShape } from "../core/model-info.ts";
import { evaluate, planDynamoQuery, type DynamoPlan, type Expression } from "../query/index.ts";
import { AHEAD, MAX_PAGE } from "./dynamodb-cursor.ts";
import { PARTIQL_IN_MAX, readIn, type KeySource } from "./dynamodb-partiql.ts";
import { fillPages } from "./fill-pages.ts";
import { addSelectivity, NO_MEASURE, selectivityEntries, type Selectivity } from "./read-size.ts";
import { assertPartitionField, compareValues, cursorOf, keyFieldsOf } from "./keys.ts";
import type { Cursor, Item, KeyValue, ListEachRequest, ListRequest, Page } from "./repository.ts";

// Listings of many partitions at once (the children of many parents): PartiQL `IN` lists on a
// partition key, split from the repository that owns the table.

/**
 * A batched read of many scopes stops once it has read this many times the records their pages
 * could show (at least MAX_PAGE): one parent with a great many children is then listed on its own,
 * as `list` would, instead of being read whole.
 */
const LIST_EACH_READ_FACTOR = 2;

/** What the batched listings need of the repository besides its key reads: its own listing. */
export interface BatchSource extends KeySource {
  list(request: ListRequest): Promise<Page>;
}

/**
 * The scopes whose listing would be a Query on a key partitioned by `field` are read together, a
 * PartiQL `IN` per 50 values, then sorted and paged here as the Query would return them. A scope
 * is listed on its own (`list`) when its listing is not such a Query, when its values hold more
 * records than the read budget, or when its page ends among records of equal sort key (DynamoDB
 * does not say how it orders those, and the continuation must resume exactly where it would).
 */
export async function listEach(source: BatchSource, request: ListEachRequest): Promise<Page[]> {
  const { field, scopes, ...common } = request;
  assertPartitionField(source.table, field);
  const pages: (Page | undefined)[] = scopes.map(() => undefined);
  const byRead = new Map<string, { plan: DynamoPlan & { kind: "query" }; scopes: number[] }>();
  scopes.forEach((scope, i) => {
    const plan = planDynamoQuery({ ...(scope.where ? { where: scope.where as Expression } : {}), orderBy: common.orderBy ?? [] }, source.table);
    if (plan.kind !== "query" || shapeOf(source.table, plan).key.hash !== field) return;
    const read = `${plan.indexName ?? ""}/${String(plan.scanForward)}`;
    const group = byRead.get(read) ?? { plan, scopes: [] };
    group.scopes.push(i);
    byRead.set(read, group);
  });
  for (const { plan, scopes: members } of byRead.values()) {
    const { key, cursorFields } = shapeOf(source.table, plan);
    const compare = queryOrder(source.table, key.range, plan.scanForward);
    // Scopes may share a value (composite parents with the same first key part): one IN per 50 values.
    const values = [...new Set(members.map((s) => (scopes[s] as { value: KeyValue }).value))];
    for (let i = 0; i < values.length; i += PARTIQL_IN_MAX) {
      const chunkValues = new Set(values.slice(i, i + PARTIQL_IN_MAX));
      const chunk = members.filter((s) => chunkValues.has((scopes[s] as { value: KeyValue }).value));
      const budget = Math.max(MAX_PAGE, chunk.length * (common.limit + 1) * LIST_EACH_READ_FACTOR);
      const rows = await readIn(source, field, plan.indexName, [...chunkValues], budget);
      if (!rows) continue;
      // A scope holding more records than the read budget is listed on its own: `list` stops at the
      // budget and its cursor resumes right after the last record read.
      const maxRead = common.maxRead ?? Number.POSITIVE_INFINITY;
      const within = chunk.filter((s) => rows.filter((row) => row[field] === (scopes[s] as { value: KeyValue }).value).length <= maxRead);
      const measures: Selectivity[] = [];
      const groups = within.map((s) => {
        const { value, where } = scopes[s] as { value: KeyValue; where: unknown };
        const scoped = rows.filter((row) => row[field] === value);
        const kept = scoped.filter((row) => !where || evaluate(where as Expression, row)).sort(compare);
        measures.push(addSelectivity(NO_MEASURE, { kept: kept.length, seen: scoped.length }));
        return kept;
      });
      const filled = await fillPages(groups, common);
      within.forEach((s, g) => {
        const { items, next } = filled[g] as { items: Item[]; next?: Item };
        const last = items[items.length - 1];
        if (ambiguous(items, next, groups[g] as Item[], key.range)) return;
        const measured = measures[g] as Selectivity;
        pages[s] = next ? { items, next: resumeAfter(last, next, cursorFields, measured), scanned: measured.seen } : { items, scanned: measured.seen };
      });
    }
  }
  return Promise.all(pages.map((page, i) => page ?? source.list({ ...common, where: (scopes[i] as { where: unknown }).where })));
}

/** The key (table or index) a Query plan reads, and the attributes its cursor carries. */
function shapeOf(table: TableShape, plan: DynamoPlan & { kind: "query" }): { key: { hash: string; range?: string }; cursorFields: string[] } {
  const index = plan.indexName ? table.indexes.find((i) => i.name === plan.indexName) : undefined;
  const cursorFields = [...new Set([...keyFieldsOf(table), ...(index ? [index.hash, ...(index.range ? [index.range] : [])] : [])])];
  return { key: index ?? table.key, cursorFields };
}

/** A Query's order within one partition: by the sort key, equal ones by the table's key. */
function queryOrder(table: TableShape, range: string | undefined, forward: boolean): (a: Item, b: Item) => number {
  const keyFields = keyFieldsOf(table);
  return (a, b) => {
    const byRange = range ? compareValues(a[range], b[range]) : 0;
    if (byRange !== 0) return forward ? byRange : -byRange;
    for (const f of keyFields) {
      const c = compareValues(a[f], b[f]);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/**
 * The cursor `list` gives when `next` is the first record after the page, with the share of the
 * scope's records its filter kept (the permission is not counted: the next page measures it).
 */
function resumeAfter(last: Item | undefined, next: Item, cursorFields: string[], measured: Selectivity): Cursor {
  return { ...(last ? cursorOf(last, cursorFields) : {}), [AHEAD]: JSON.stringify(cursorOf(next, cursorFields)), ...selectivityEntries(measured) };
}

/**
 * Whether DynamoDB's own order could differ from ours: two records of the page (with the one after
 * it) share a sort key value, or the one after it shares its value with any other record (the next
 * page resumes after it in DynamoDB's order). A key without a sort part orders nothing.
 */
function ambiguous(items: Item[], next: Item | undefined, rows: Item[], range: string | undefined): boolean {
  const shown = next ? [...items, next] : items;
  if (range === undefined) return shown.length > 1;
  const seen = new Set<string>();
  for (const item of shown) {
    const value = JSON.stringify(item[range] ?? null);
    if (seen.has(value)) return true;
    seen.add(value);
  }
  return next !== undefined && rows.some((row) => row !== next && compareValues(row[range], next[range]) === 0);
}
