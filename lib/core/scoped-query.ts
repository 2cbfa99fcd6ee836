import type { Expression } from "./query-language.ts";
import { parseQuery, printQuery } from "./query-language.ts";

/**
 * The caller's query restricted to `field = value` for each entry of `scope` (the key of the parent
 * a child list belongs to): parsed (so ORDER BY / LIMIT stay clauses and the filter cannot escape
 * its parentheses) and printed back with the equalities ANDed in front.
 */
export function scopedQuery(scope: Readonly<Record<string, string | number>>, text: string): string {
  const query = parseQuery(text);
  const equalities: Expression[] = Object.entries(scope).map(([field, value]) => ({ kind: "compare", field, operator: "=", value }));
  const where: Expression = !query.where && equalities.length === 1 ? (equalities[0] as Expression)
    : { kind: "and", operands: [...equalities, ...(!query.where ? [] : query.where.kind === "and" ? query.where.operands : [query.where])] };
  return printQuery({ ...query, where });
}
