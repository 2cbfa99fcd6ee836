import type { Expression } from "./ast.ts";
import { readField } from "./evaluate.ts";
import { parseLikePattern } from "./like.ts";

/**
 * A bound on what `evaluate(expression, record)` costs, in the LIKE matcher's steps (like-match.ts:
 * about (value + pattern) × (wildcards + 1) per LIKE), every other predicate one. Cheap to compute
 * (no matching), so a caller can order or budget evaluations before running them.
 */
export function evaluationCost(expression: Expression, record: Readonly<Record<string, unknown>>): number {
  switch (expression.kind) {
    case "and":
    case "or":
      return expression.operands.reduce((sum, operand) => sum + evaluationCost(operand, record), 1);
    case "not":
      return 1 + evaluationCost(expression.operand, record);
    case "like": {
      const value = readField(record, expression.field);
      if (typeof value !== "string") return 1;
      const wildcards = parseLikePattern(expression.pattern).filter((token) => token.kind !== "literal").length;
      return (value.length + expression.pattern.length) * (wildcards + 1);
    }
    default:
      return 1;
  }
}
