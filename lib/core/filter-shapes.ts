/**
 * The index advisor's figures: per model and filter shape (fields and operators, never values),
 * items read per row a listing returned, and the `indexes` declaration that would serve the shape.
 * One metric line per filtered listing (metrics.ts, `writeMetricLine`): EMF in a deployed stage,
 * the metrics file under `npm start`, summarised by `npm run metrics`.
 */
import type { Expression } from "../query/index.ts";
import type { TableShape } from "./model-info.ts";
import type { OrderTerm } from "./repository.ts";
import { writeMetricLine } from "./metrics.ts";

/** One node of the filter without its values: `viewCount < ?`, `title LIKE ?`, `status IN (?)`. */
function shapeOf(e: Expression): string {
  switch (e.kind) {
    case "and":
    case "or":
      return `(${e.operands.map(shapeOf).join(e.kind === "and" ? " AND " : " OR ")})`;
    case "not":
      return `NOT ${shapeOf(e.operand)}`;
    case "compare":
      return `${e.field} ${e.operator} ?`;
    case "like":
      return `${e.field} LIKE ?`;
    case "in":
      return `${e.field} IN (?)`;
    case "contains":
      return `${e.field} CONTAINS ?`;
    case "isNull":
      return `${e.field} IS ${e.negated ? "NOT " : ""}NULL`;
  }
}

/** The filter's shape as text, top-level parentheses dropped, with its order. */
export function filterShape(where: Expression, orderBy: readonly OrderTerm[]): string {
  const text = shapeOf(where).replace(/^\((.*)\)$/, "$1");
  return orderBy.length > 0 ? `${text} ORDER BY ${orderBy.map((o) => `${o.field} ${o.direction}`).join(", ")}` : text;
}

/** The top-level conjuncts of the filter. */
function conjuncts(where: Expression): Expression[] {
  return where.kind === "and" ? where.operands : [where];
}

/**
 * An `indexes` entry that would let DynamoDB read only what the shape asks for: a field the filter
 * fixes with `=` as its hash, and a field it compares by range (or orders by) as its sort key. A
 * shape that fixes no field cannot be served by a key: the advice takes the hash of the model's
 * first index and says the filter must fix it too. Undefined when nothing would help (OR, NOT).
 */
export function indexAdvice(where: Expression, orderBy: readonly OrderTerm[], table: TableShape): string | undefined {
  const parts = conjuncts(where);
  const equal = parts.flatMap((p) => (p.kind === "compare" && p.operator === "=" ? [p.field] : []));
  const ranged = parts.flatMap((p) =>
    (p.kind === "compare" && ["<", "<=", ">", ">="].includes(p.operator)) || (p.kind === "like" && !p.pattern.startsWith("%")) ? [p.field] : [],
  );
  const range = ranged[0] ?? orderBy[0]?.field ?? equal[1];
  let hash = equal.find((f) => f !== range);
  let note = "";
  if (!hash) {
    hash = table.indexes[0]?.hash ?? table.key.hash;
    if (hash === range) return undefined;
    note = ` (and fix ${hash} with = in the filter)`;
  }
  if (!range) return `{ name: "by_${hash}", hash: "${hash}" }${note}`;
  return `{ name: "by_${hash}_${range}", hash: "${hash}", range: "${range}" }${note}`;
}

/** Shapes already given their advice, so a shape's advice is computed once per process. */
const advised = new Map<string, string>();
const MAX_SHAPES = 500;

/**
 * Records one filtered listing's page: items the store evaluated and rows it returned. A filter
 * fully served by a key still counts (its ratio is then near 1, never among the worst).
 */
export function recordFilterShape(model: string, table: TableShape, where: Expression, orderBy: readonly OrderTerm[], scanned: number, returned: number): void {
  const shape = filterShape(where, orderBy);
  const key = `${model} ${shape}`;
  let advice = advised.get(key);
  if (advice === undefined) {
    advice = indexAdvice(where, orderBy, table) ?? "";
    // Shapes are the application's own queries, so this stays small; bounded all the same.
    if (advised.size < MAX_SHAPES) advised.set(key, advice);
  }
  writeMetricLine((namespace) =>
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: namespace,
            Dimensions: [["Model", "FilterShape"]],
            Metrics: [
              { Name: "ListingItemsRead", Unit: "Count" },
              { Name: "ListingRowsReturned", Unit: "Count" },
            ],
          },
        ],
      },
      Model: model,
      FilterShape: shape,
      ListingItemsRead: scanned,
      ListingRowsReturned: returned,
      ...(advice ? { IndexAdvice: advice } : {}),
    }),
  );
}
