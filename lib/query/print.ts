import type { Expression, OrderBy, Query, Value } from "./ast.ts";
import { isWritableField } from "./keywords.ts";

/**
 * Prints a query as text that parses back to an equal tree. Parentheses appear only where the
 * parser would otherwise build a different tree (a nested AND/OR kept as its own node).
 */
export function printQuery(query: Query): string {
  const parts: string[] = [];
  if (query.where !== undefined) parts.push(printExpression(query.where));
  if (query.orderBy.length > 0) parts.push(`ORDER BY ${query.orderBy.map(printOrder).join(", ")}`);
  if (query.limit !== undefined) parts.push(`LIMIT ${query.limit}`);
  if (query.offset !== undefined) parts.push(`OFFSET ${printValue(query.offset)}`);
  return parts.join(" ");
}

export function printExpression(expression: Expression): string {
  switch (expression.kind) {
    case "or":
      return expression.operands.map((operand) => wrapIf(operand, operand.kind === "or")).join(" OR ");
    case "and":
      return expression.operands.map((operand) => wrapIf(operand, operand.kind === "or" || operand.kind === "and")).join(" AND ");
    case "not": {
      const operand = expression.operand;
      return `NOT ${wrapIf(operand, operand.kind === "or" || operand.kind === "and")}`;
    }
    case "compare":
      return `${printField(expression.field)} ${expression.operator} ${printValue(expression.value)}`;
    case "like":
      return `${printField(expression.field)} LIKE ${printValue(expression.pattern)}`;
    case "in":
      return `${printField(expression.field)} IN [${expression.values.map(printValue).join(", ")}]`;
    case "contains":
      return `${printField(expression.field)} CONTAINS ${printValue(expression.value)}`;
    case "isNull":
      return `${printField(expression.field)} IS ${expression.negated ? "NOT " : ""}NULL`;
  }
}

export function printValue(value: Value): string {
  if (typeof value === "string") return `'${value.replace(/[\\']/g, "\\$&")}'`;
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (!Number.isFinite(value)) throw new TypeError(`cannot print the number ${value} in a query`);
  return Object.is(value, -0) ? "-0" : String(value);
}

function printOrder(order: OrderBy): string {
  return `${printField(order.field)} ${order.direction}`;
}

/** Refuses a field that would read back as something else: a tree must not inject syntax. */
function printField(field: string): string {
  if (!isWritableField(field)) throw new TypeError(`cannot print the field name ${JSON.stringify(field)} in a query`);
  return field;
}

function wrapIf(expression: Expression, wrap: boolean): string {
  const text = printExpression(expression);
  return wrap ? `(${text})` : text;
}
