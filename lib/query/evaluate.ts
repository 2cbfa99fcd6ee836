import type { CompareOperator, Expression, OrderBy, Value } from "./ast.ts";
import { fieldSegments } from "./ast.ts";
import { matchLike } from "./like-match.ts";
import { compareForSort, compareScalars } from "./order.ts";

/**
 * Two-valued logic, chosen to agree with DynamoDB filter expressions (see README.md):
 * a missing attribute reads as null; every test on null is false except IS NULL, and `!=`,
 * which is exactly NOT `=`; values of different types are never equal nor ordered.
 */
export function evaluate(expression: Expression, record: Readonly<Record<string, unknown>>): boolean {
  switch (expression.kind) {
    case "and":
      return expression.operands.every((operand) => evaluate(operand, record));
    case "or":
      return expression.operands.some((operand) => evaluate(operand, record));
    case "not":
      return !evaluate(expression.operand, record);
    case "compare":
      return compare(readField(record, expression.field), expression.operator, expression.value);
    case "like": {
      const value = readField(record, expression.field);
      return typeof value === "string" && matchLike(expression.pattern, value);
    }
    case "in": {
      const value = readField(record, expression.field);
      return expression.values.some((candidate) => same(value, candidate));
    }
    case "contains": {
      const value = readField(record, expression.field);
      return Array.isArray(value) && value.some((item) => same(item, expression.value));
    }
    case "isNull": {
      const value = readField(record, expression.field);
      return (value === null) !== expression.negated;
    }
  }
}

/** Follows a dotted path through own properties of plain objects; anything else is null. */
export function readField(record: Readonly<Record<string, unknown>>, field: string): unknown {
  let current: unknown = record;
  for (const segment of fieldSegments(field)) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return null;
    if (!Object.hasOwn(current, segment)) return null;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? null : current;
}

/** Sorts records by the ORDER BY list; ties keep their order under a stable sort. */
export function compareRecords(orderBy: readonly OrderBy[]): (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>) => number {
  return (a, b) => {
    for (const { field, direction } of orderBy) {
      const order = compareForSort(readField(a, field), readField(b, field));
      if (order !== 0) return direction === "DESC" ? -order : order;
    }
    return 0;
  };
}

function compare(actual: unknown, operator: CompareOperator, expected: Value): boolean {
  switch (operator) {
    case "=":
      return same(actual, expected);
    case "!=":
      return !same(actual, expected);
    default: {
      const order = compareScalars(actual, expected);
      if (order === undefined) return false;
      if (operator === "<") return order < 0;
      if (operator === "<=") return order <= 0;
      if (operator === ">") return order > 0;
      return order >= 0;
    }
  }
}

function same(actual: unknown, expected: Value): boolean {
  return typeof actual === typeof expected && actual === expected;
}
