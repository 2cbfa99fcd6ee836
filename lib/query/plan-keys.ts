import type { Expression, OrderBy, Value } from "./ast.ts";
import { queryError } from "./fail.ts";
import { likeShape } from "./like.ts";
import { compareScalars } from "./order.ts";
import { sendable, type Placeholders } from "./placeholders.ts";

export interface KeyShape {
  hash: string;
  range?: string;
}

export interface TableShape {
  key: KeyShape;
  indexes: ({ name: string } & KeyShape)[];
}

export interface ChosenKey {
  key: KeyShape;
  indexName?: string;
  /** Position in the conjunct list of the hash-key equality. */
  hashConjunct: number;
  scanForward: boolean;
}

/**
 * Picks the table or index to Query, or undefined for a Scan. Throws when ORDER BY asks for an
 * order that no reachable key shape delivers, since sorting a whole Scan is never acceptable.
 */
export function chooseKey(table: TableShape, conjuncts: readonly Expression[], orderBy: readonly OrderBy[]): ChosenKey | undefined {
  const shapes: { key: KeyShape; indexName?: string }[] = [{ key: table.key }, ...table.indexes.map((index) => ({ key: index, indexName: index.name }))];
  const bound = shapes.flatMap((shape) => {
    const hashConjunct = conjuncts.findIndex((conjunct) => keyEquality(conjunct, shape.key.hash) !== undefined);
    return hashConjunct < 0 ? [] : [{ ...shape, hashConjunct }];
  });
  const [first, second] = orderBy;
  if (first !== undefined) {
    const serving = bound.find((shape) => shape.key.range === first.field);
    if (serving === undefined) throw orderError(first.field);
    if (second !== undefined) throw orderError(second.field);
    return { ...serving, scanForward: first.direction === "ASC" };
  }
  const usesRange = (shape: { key: KeyShape }): boolean => conjuncts.some((conjunct) => rangeCondition(conjunct, shape.key.range) !== undefined);
  const chosen = bound.find((shape) => shape.indexName === undefined) ?? bound.find(usesRange) ?? bound[0];
  return chosen === undefined ? undefined : { ...chosen, scanForward: true };
}

function orderError(field: string): Error {
  return queryError(`cannot ORDER BY '${field}': no index serves this order; declare one on the model`);
}

/** Key attributes hold only non-empty strings or numbers DynamoDB can store, so no other value can bind one. */
function keyValue(value: Value): value is string | number {
  return (typeof value === "number" && sendable(value)) || (typeof value === "string" && value !== "");
}

function keyEquality(conjunct: Expression, attribute: string): Value | undefined {
  return conjunct.kind === "compare" && conjunct.operator === "=" && conjunct.field === attribute && keyValue(conjunct.value) ? conjunct.value : undefined;
}

type RangeCondition = { operator: "=" | "<" | "<=" | ">" | ">="; value: string | number } | { operator: "begins_with"; value: string };

function rangeCondition(conjunct: Expression, attribute: string | undefined): RangeCondition | undefined {
  if (attribute === undefined) return undefined;
  if (conjunct.kind === "compare" && conjunct.field === attribute && conjunct.operator !== "!=" && keyValue(conjunct.value)) {
    return { operator: conjunct.operator, value: conjunct.value };
  }
  if (conjunct.kind === "like" && conjunct.field === attribute) {
    const shape = likeShape(conjunct.pattern);
    if (shape.kind === "exact" && shape.text !== "") return { operator: "=", value: shape.text };
    if (shape.kind === "prefix") return { operator: "begins_with", value: shape.text };
  }
  return undefined;
}

/**
 * Builds the KeyConditionExpression and reports which conjuncts it fully replaces. DynamoDB takes
 * one condition on the range key, so an inclusive pair of bounds becomes BETWEEN and any other
 * range conjunct is left for the caller.
 */
export function keyCondition(chosen: ChosenKey, conjuncts: readonly Expression[], placeholders: Placeholders): { text: string; used: Set<number> } {
  const hashConjunct = conjuncts[chosen.hashConjunct];
  const hashValue = hashConjunct === undefined ? undefined : keyEquality(hashConjunct, chosen.key.hash);
  if (hashValue === undefined) throw new TypeError("chooseKey returned a hash conjunct that does not bind the key");
  const used = new Set([chosen.hashConjunct]);
  const parts = [`${placeholders.path(chosen.key.hash)} = ${placeholders.value(hashValue)}`];
  const candidates = conjuncts.flatMap((conjunct, index) => {
    const condition = used.has(index) ? undefined : rangeCondition(conjunct, chosen.key.range);
    return condition === undefined ? [] : [{ index, condition }];
  });
  const pick =
    candidates.find((candidate) => candidate.condition.operator === "=") ?? candidates.find((candidate) => candidate.condition.operator === "begins_with");
  const lower = candidates.find((candidate) => candidate.condition.operator === ">=");
  const upper = candidates.find((candidate) => candidate.condition.operator === "<=");
  // Allocated only when used: DynamoDB rejects placeholders the expressions never mention.
  const range = (): string => placeholders.path(chosen.key.range ?? "");
  if (pick === undefined && lower !== undefined && upper !== undefined && ordered(lower.condition.value, upper.condition.value)) {
    parts.push(`${range()} BETWEEN ${placeholders.value(lower.condition.value)} AND ${placeholders.value(upper.condition.value)}`);
    used.add(lower.index).add(upper.index);
  } else {
    const single = pick ?? candidates[0];
    if (single !== undefined) {
      const { operator, value } = single.condition;
      const path = range();
      const placeholder = placeholders.value(value);
      parts.push(operator === "begins_with" ? `begins_with(${path}, ${placeholder})` : `${path} ${operator} ${placeholder}`);
      used.add(single.index);
    }
  }
  return { text: parts.join(" AND "), used };
}

/** DynamoDB refuses BETWEEN with bounds of different types or in the wrong order. */
function ordered(lower: string | number, upper: string | number): boolean {
  const order = compareScalars(lower, upper);
  return order !== undefined && order <= 0;
}
