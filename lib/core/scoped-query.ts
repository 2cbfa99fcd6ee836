import type { Expression, FilterLimits } from "./query-language.ts";
import { DEFAULT_FILTER_LIMITS, parseQuery, printQuery } from "./query-language.ts";

/**
 * The caller's query restricted to `field = value` for each entry of `scope` (the key of the parent
 * a child list belongs to): parsed (so ORDER BY / LIMIT stay clauses and the filter cannot escape
 * its parentheses) and printed back with the equalities ANDed in front.
 */
export function scopedQuery(scope: Readonly<Record<string, string | number>>, text: string, limits: Partial<FilterLimits> = {}): string {
  // The equalities added here are terms of the query that runs (and is parsed again with the same
  // limits): they count toward the caller's, so the refusal comes here, naming the caller's column.
  const terms = (limits.terms ?? DEFAULT_FILTER_LIMITS.terms) - Object.keys(scope).length;
  const query = parseQuery(text, { ...limits, terms });
  const equalities: Expression[] = Object.entries(scope).map(([field, value]) => ({ kind: "compare", field, operator: "=", value }));
  const where: Expression =
    !query.where && equalities.length === 1
      ? (equalities[0] as Expression)
      : { kind: "and", operands: [...equalities, ...(!query.where ? [] : query.where.kind === "and" ? query.where.operands : [query.where])] };
  return printQuery({ ...query, where });
}
