import type { Expression, Query } from "./ast.ts";
import { emitFilter, expressible, operatorCount } from "./plan-filter.ts";
import { chooseKey, keyCondition, type TableShape } from "./plan-keys.ts";
import { Placeholders } from "./placeholders.ts";

export type { KeyShape, TableShape } from "./plan-keys.ts";

export type DynamoRead = { kind: "query"; indexName?: string; keyCondition: string; scanForward: boolean } | { kind: "scan" };

export type DynamoPlan = DynamoRead & {
  filterExpression?: string;
  /** ExpressionAttributeNames: only placeholders the expressions use. */
  names: Record<string, string>;
  /** ExpressionAttributeValues, as plain values for the DynamoDB document client. */
  values: Record<string, unknown>;
  /** What DynamoDB cannot test exactly: run `evaluate` on each item read. */
  residual?: Expression;
};

/**
 * Translates a query into one DynamoDB read. Pure: it neither reads nor knows attribute types,
 * so check the query against the model's schema first. LIMIT and OFFSET are the caller's
 * business: with a residual, DynamoDB's Limit counts items before the residual drops some.
 */
/** DynamoDB's limit on any one expression string. */
const MAX_EXPRESSION_BYTES = 4096;
/** DynamoDB's limit on all substitution names and values of a request (2 MB), with room for the rest. */
const MAX_SUBSTITUTION_BYTES = 1_500_000;
/** Keeps well under DynamoDB's count of operators in one expression. */
const MAX_FILTER_CONJUNCTS = 100;
/** DynamoDB's limit on the operators and functions of one expression. */
const MAX_FILTER_OPERATORS = 300;

export function planDynamoQuery(query: Query, table: TableShape): DynamoPlan {
  const conjuncts = topLevelConjuncts(query.where);
  const placeholders = new Placeholders();
  const chosen = chooseKey(table, conjuncts, query.orderBy);
  let read: DynamoRead = { kind: "scan" };
  let used = new Set<number>();
  const keyAttributes = new Set<string>();
  if (chosen !== undefined) {
    const condition = keyCondition(chosen, conjuncts, placeholders);
    used = condition.used;
    read = { kind: "query", keyCondition: condition.text, scanForward: chosen.scanForward };
    if (chosen.indexName !== undefined) read.indexName = chosen.indexName;
    // A Query's filter may not name key attributes; the table's are kept out too, to be safe on
    // indexes.
    for (const key of [chosen.key, table.key]) {
      keyAttributes.add(key.hash);
      if (key.range !== undefined) keyAttributes.add(key.range);
    }
  }
  const filters: string[] = [];
  const residuals: Expression[] = [];
  let filterBytes = 0;
  let filterOperators = 0;
  conjuncts.forEach((conjunct, index) => {
    if (used.has(index)) return;
    if (expressible(conjunct, keyAttributes) && filters.length < MAX_FILTER_CONJUNCTS) {
      // DynamoDB refuses an expression over 4 KB or 300 operators: what does not fit stays with
      // `evaluate`, which gives the same answer, so a long filter costs reads, never an error.
      const trial = placeholders.fork();
      const text = emitFilter(conjunct, trial);
      const joined = filters.length > 0;
      const bytes = Buffer.byteLength(text) + (joined ? 5 : 0);
      const operators = operatorCount(text) + (joined ? 1 : 0);
      if (filterBytes + bytes <= MAX_EXPRESSION_BYTES && filterOperators + operators <= MAX_FILTER_OPERATORS && trial.valueBytes() <= MAX_SUBSTITUTION_BYTES) {
        placeholders.adopt(trial);
        filters.push(text);
        filterBytes += bytes;
        filterOperators += operators;
        return;
      }
    }
    residuals.push(conjunct);
  });
  const plan: DynamoPlan = { ...read, names: placeholders.names, values: placeholders.values };
  if (filters.length > 0) plan.filterExpression = filters.join(" AND ");
  const [onlyResidual] = residuals;
  if (onlyResidual !== undefined) plan.residual = residuals.length === 1 ? onlyResidual : { kind: "and", operands: residuals };
  return plan;
}

/** Parenthesised ANDs inside an AND are still one conjunction, and each part can go its own way. */
function topLevelConjuncts(where: Expression | undefined): Expression[] {
  if (where === undefined) return [];
  return where.kind === "and" ? where.operands.flatMap(topLevelConjuncts) : [where];
}
