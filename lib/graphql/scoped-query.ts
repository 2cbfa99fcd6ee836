import type { Expression } from "../query/index.ts";
import { parseQuery, printQuery } from "../query/index.ts";

/**
 * The caller's query restricted to `field = value`: parsed (so ORDER BY / LIMIT stay clauses and
 * the filter cannot escape its parentheses) and printed back with the equality ANDed in front.
 */
export function scopedQuery(field: string, value: string | number, text: string): string {
  const query = parseQuery(text);
  const scope: Expression = { kind: "compare", field, operator: "=", value };
  const where: Expression = !query.where ? scope
    : { kind: "and", operands: [scope, ...(query.where.kind === "and" ? query.where.operands : [query.where])] };
  return printQuery({ ...query, where });
}
