import type { Expression, OrderBy, Query, Value } from "./ast.ts";
import { fieldSegments } from "./ast.ts";
import { queryErrors } from "./fail.ts";
import { atColumn } from "./positions.ts";
import { kindOfValue, resolvePath, typeOf, type FieldType, type JsonSchema, type Kind } from "./schema.ts";

export interface CheckOptions {
  /**
   * Fields every record has besides the schema's own, e.g.
   * `{ createdAt: { type: "string", format: "date-time" } }`. They win over schema properties.
   */
  extraFields?: Readonly<Record<string, JsonSchema>>;
}

/**
 * Rejects, with one BadQueryError listing every problem, fields the schema does not have and
 * values that could never match the field's type. Enum membership is not checked: a value
 * outside the enum is well-typed and simply matches nothing.
 */
export function checkQuery(query: Query, schema: JsonSchema, options: CheckOptions = {}): void {
  const problems: string[] = [];
  if (query.where !== undefined) collect(query.where, schema, options, problems);
  for (const order of query.orderBy) checkOrder(order, schema, options, problems);
  if (problems.length > 0) throw queryErrors(problems);
}

export function checkExpression(expression: Expression, schema: JsonSchema, options: CheckOptions = {}): void {
  const problems: string[] = [];
  collect(expression, schema, options, problems);
  if (problems.length > 0) throw queryErrors(problems);
}

function collect(expression: Expression, schema: JsonSchema, options: CheckOptions, problems: string[]): void {
  switch (expression.kind) {
    case "and":
    case "or":
      for (const operand of expression.operands) collect(operand, schema, options, problems);
      return;
    case "not":
      collect(expression.operand, schema, options, problems);
      return;
    default: {
      const type = fieldType(expression.field, schema, options);
      const where = atColumn(expression);
      if (type === undefined) {
        problems.push(`unknown field '${expression.field}'${where}`);
        return;
      }
      const problem = predicateProblem(expression, type);
      if (problem !== undefined) problems.push(`${problem}${where}`);
    }
  }
}

function predicateProblem(expression: Exclude<Expression, { kind: "and" | "or" | "not" }>, type: FieldType): string | undefined {
  const field = `'${expression.field}'`;
  switch (expression.kind) {
    case "compare": {
      const ordering = expression.operator !== "=" && expression.operator !== "!=";
      if (ordering && typeof expression.value === "boolean") {
        return `cannot use '${expression.operator}' with a boolean on ${field}`;
      }
      return valueProblem(field, type, expression.value);
    }
    case "in":
      for (const [index, value] of expression.values.entries()) {
        const problem = valueProblem(field, type, value);
        if (problem !== undefined) return `${problem} (IN value ${index + 1})`;
      }
      return undefined;
    case "like":
      return accepts(type, "string") ? undefined : `LIKE needs a string field, but ${field} is ${describe(type)}`;
    case "contains": {
      if (!accepts(type, "array")) return `CONTAINS needs an array field, but ${field} is ${describe(type)}`;
      if (type.any) return undefined;
      const items = typeOf(type.items);
      if (type.items.length === 0 || accepts(items, kindOfValue(expression.value))) return undefined;
      return `${field} holds ${describe(items)}, not ${article(kindOfValue(expression.value))}`;
    }
    case "isNull":
      return undefined;
  }
}

function valueProblem(field: string, type: FieldType, value: Value): string | undefined {
  const kind = kindOfValue(value);
  if (accepts(type, kind)) return undefined;
  const hint = type.kinds.has("array") ? " (use CONTAINS to look inside an array)" : "";
  return `cannot compare ${field}, which is ${describe(type)}, with ${article(kind)}${hint}`;
}

function checkOrder(order: OrderBy, schema: JsonSchema, options: CheckOptions, problems: string[]): void {
  const type = fieldType(order.field, schema, options);
  const where = atColumn(order);
  if (type === undefined) {
    problems.push(`unknown field '${order.field}' in ORDER BY${where}`);
  } else if (!type.any && !SORTABLE.some((kind) => type.kinds.has(kind))) {
    problems.push(`cannot ORDER BY '${order.field}', which is ${describe(type)}${where}`);
  }
}

const SORTABLE: readonly Kind[] = ["string", "number", "boolean"];

function fieldType(field: string, schema: JsonSchema, options: CheckOptions): FieldType | undefined {
  const extra = options.extraFields;
  if (extra !== undefined && Object.hasOwn(extra, field)) {
    const declared = extra[field];
    if (declared !== undefined) return typeOf([declared]);
  }
  const reached = resolvePath(schema, fieldSegments(field));
  return reached === undefined ? undefined : typeOf(reached);
}

function accepts(type: FieldType, kind: Kind): boolean {
  return type.any || type.kinds.has(kind);
}

function describe(type: FieldType): string {
  const kinds = [...type.kinds].filter((kind) => kind !== "null");
  if (type.any) return "of any type";
  if (kinds.length === 0) return "always null";
  const words = kinds.map(article);
  const last = words.pop() ?? "";
  return words.length === 0 ? last : `${words.join(", ")} or ${last}`;
}

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
