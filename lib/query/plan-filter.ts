import type { Expression, Predicate } from "./ast.ts";
import { fieldSegments } from "./ast.ts";
import { likeShape } from "./like.ts";
import { sendable, type Placeholders } from "./placeholders.ts";

/** DynamoDB refuses an IN with more operands than this. */
const MAX_IN_VALUES = 100;

/**
 * Whether DynamoDB can evaluate the node with exactly `evaluate`'s result on every item.
 * `keyAttributes` are the attributes a Query's filter may not mention.
 */
export function expressible(expression: Expression, keyAttributes: ReadonlySet<string>): boolean {
  switch (expression.kind) {
    case "and":
    case "or":
      return expression.operands.every((operand) => expressible(operand, keyAttributes));
    case "not":
      return expressible(expression.operand, keyAttributes);
    default:
      return !keyAttributes.has(fieldSegments(expression.field)[0] ?? "") && predicateExpressible(expression);
  }
}

function predicateExpressible(predicate: Predicate): boolean {
  switch (predicate.kind) {
    case "compare":
      if (!sendable(predicate.value)) return false;
      // DynamoDB rejects `<` and friends on a BOOL operand; evaluate says false, the residual agrees.
      return predicate.operator === "=" || predicate.operator === "!=" || typeof predicate.value !== "boolean";
    case "like":
      return likeShape(predicate.pattern).kind !== "other";
    case "in":
      return predicate.values.length > 0 && predicate.values.length <= MAX_IN_VALUES && predicate.values.every(sendable);
    case "contains":
      return typeof predicate.value !== "boolean" && sendable(predicate.value);
    case "isNull":
      return true;
  }
}

/**
 * How many operators and functions DynamoDB counts in an emitted expression (its limit is 300 per
 * expression): every comparison, AND, OR, NOT, IN, BETWEEN and function call. Names and values are
 * placeholders (`#n0`, `:v0`), so no user text can look like one.
 */
export function operatorCount(text: string): number {
  return text.match(/<>|<=|>=|[=<>]|\b(?:AND|OR|NOT|IN|BETWEEN)\b|\b[a-z_]+\(/g)?.length ?? 0;
}

/** Call only on an expressible node: every placeholder it allocates ends up in the text. */
export function emitFilter(expression: Expression, placeholders: Placeholders): string {
  switch (expression.kind) {
    case "and":
      return `(${expression.operands.map((operand) => emitFilter(operand, placeholders)).join(" AND ")})`;
    case "or":
      return `(${expression.operands.map((operand) => emitFilter(operand, placeholders)).join(" OR ")})`;
    case "not":
      return `(NOT ${emitFilter(expression.operand, placeholders)})`;
    default:
      return emitPredicate(expression, placeholders);
  }
}

function emitPredicate(predicate: Predicate, placeholders: Placeholders): string {
  const path = placeholders.path(predicate.field);
  switch (predicate.kind) {
    case "compare": {
      const operator = predicate.operator === "!=" ? "<>" : predicate.operator;
      return `${path} ${operator} ${placeholders.value(predicate.value)}`;
    }
    case "in": {
      const operands = predicate.values.map((value) => placeholders.value(value));
      // IN is documented for scalar comparisons; BOOL operands get plain equalities, valid for sure.
      return predicate.values.some((value) => typeof value === "boolean")
        ? `(${operands.map((operand) => `${path} = ${operand}`).join(" OR ")})`
        : `${path} IN (${operands.join(", ")})`;
    }
    case "contains":
      // Without the type guard DynamoDB would also find substrings of a string attribute.
      return `(attribute_type(${path}, ${placeholders.typeTag("L")}) AND contains(${path}, ${placeholders.value(predicate.value)}))`;
    case "isNull":
      // A stored NULL is null too, not only a missing attribute.
      return predicate.negated
        ? `(attribute_exists(${path}) AND (NOT attribute_type(${path}, ${placeholders.typeTag("NULL")})))`
        : `(attribute_not_exists(${path}) OR attribute_type(${path}, ${placeholders.typeTag("NULL")}))`;
    case "like":
      return emitLike(path, predicate.pattern, placeholders);
  }
}

function emitLike(path: string, pattern: string, placeholders: Placeholders): string {
  const shape = likeShape(pattern);
  switch (shape.kind) {
    case "exact":
      return `${path} = ${placeholders.value(shape.text)}`;
    case "prefix":
      return `begins_with(${path}, ${placeholders.value(shape.text)})`;
    case "infix":
      // contains() on a string set would test membership, so insist on a string.
      return `(attribute_type(${path}, ${placeholders.typeTag("S")}) AND contains(${path}, ${placeholders.value(shape.text)}))`;
    case "anyString":
      return `attribute_type(${path}, ${placeholders.typeTag("S")})`;
    case "other":
      throw new TypeError("emitFilter called on a LIKE pattern DynamoDB cannot express");
  }
}
