import type { Expression, Predicate } from "./ast.ts";
import { fieldSegments } from "./ast.ts";
import { evaluate } from "./evaluate.ts";

/**
 * A filter that matches a stored record exactly when `expression` matches the record as it is
 * served, where a top-level field of `defaults` that is missing (or null) reads as its default.
 * A store (DynamoDB's filter expression, or `evaluate` in memory) then runs it on the raw items and
 * finds old rows as their served value says.
 *
 * Each predicate P on such a field f is judged twice, once on a record holding only the default
 * (what an old row is served as) and once on an empty record (what the store sees of it):
 * - both agree: P already treats an old row as its served value does, and stays as written;
 * - true served, false stored: `P OR f IS NULL` (`f = 'draft'` becomes
 *   `f = 'draft' OR attribute_not_exists(f) OR f is NULL` in DynamoDB);
 * - false served, true stored: `P AND f IS NOT NULL` (`f != 'draft'` no longer matches old rows).
 * Each rewritten predicate is equivalent to P on the served record, so the rewrite composes under
 * AND, OR and NOT. A dotted path into a defaulted object is judged the same way.
 */
export function withDefaults(expression: Expression, defaults: Readonly<Record<string, unknown>>): Expression {
  if (Object.keys(defaults).length === 0) return expression;
  const rewrite = (node: Expression): Expression => {
    switch (node.kind) {
      case "and":
      case "or":
        return { kind: node.kind, operands: node.operands.map(rewrite) };
      case "not":
        return { kind: "not", operand: rewrite(node.operand) };
      default:
        return rewritePredicate(node, defaults);
    }
  };
  return rewrite(expression);
}

function rewritePredicate(predicate: Predicate, defaults: Readonly<Record<string, unknown>>): Expression {
  const top = fieldSegments(predicate.field)[0] ?? "";
  if (!Object.hasOwn(defaults, top)) return predicate;
  const served = evaluate(predicate, { [top]: defaults[top] });
  const stored = evaluate(predicate, {});
  if (served === stored) return predicate;
  const absent: Expression = { kind: "isNull", field: top, negated: !served };
  return { kind: served ? "or" : "and", operands: [predicate, absent] };
}
