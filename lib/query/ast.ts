/**
 * The query language's syntax tree. Plain data (no classes, no positions) so that trees compare
 * with deep equality, serialise as JSON and can be built by hand; source columns live aside in
 * `positions.ts`.
 */

/** A literal. Numbers are JavaScript numbers: integers beyond 2^53 lose precision. */
export type Value = string | number | boolean;

export type CompareOperator = "=" | "!=" | "<" | "<=" | ">" | ">=";

export type Direction = "ASC" | "DESC";

/**
 * A field is a dotted path such as `author.name`; each segment is `[A-Za-z_][A-Za-z0-9_]*` and
 * the first one is not a reserved keyword.
 */
export type Field = string;

/** Logical nodes are n-ary and hold at least two operands. */
export interface AndExpression {
  kind: "and";
  operands: Expression[];
}

export interface OrExpression {
  kind: "or";
  operands: Expression[];
}

export interface NotExpression {
  kind: "not";
  operand: Expression;
}

export interface CompareExpression {
  kind: "compare";
  field: Field;
  operator: CompareOperator;
  value: Value;
}

/** `pattern` is the string as written after unquoting: `%`, `_` and `\` still carry LIKE meaning. */
export interface LikeExpression {
  kind: "like";
  field: Field;
  pattern: string;
}

/** Holds at least one value. */
export interface InExpression {
  kind: "in";
  field: Field;
  values: Value[];
}

export interface ContainsExpression {
  kind: "contains";
  field: Field;
  value: Value;
}

/** `IS NULL` (negated: false) or `IS NOT NULL` (negated: true). */
export interface IsNullExpression {
  kind: "isNull";
  field: Field;
  negated: boolean;
}

export type Expression =
  AndExpression | OrExpression | NotExpression | CompareExpression | LikeExpression | InExpression | ContainsExpression | IsNullExpression;

/** The nodes that test one field. */
export type Predicate = Exclude<Expression, AndExpression | OrExpression | NotExpression>;

export interface OrderBy {
  field: Field;
  direction: Direction;
}

export interface Query {
  /** Absent: every record. */
  where?: Expression;
  orderBy: OrderBy[];
  limit?: number;
  /** An opaque continuation token. */
  offset?: string;
}

export function fieldSegments(field: Field): string[] {
  return field.split(".");
}

/** Every field an expression names, in order of appearance, each once. */
export function expressionFields(expression: Expression): Field[] {
  const out = new Set<Field>();
  const visit = (node: Expression): void => {
    if (node.kind === "and" || node.kind === "or") node.operands.forEach(visit);
    else if (node.kind === "not") visit(node.operand);
    else out.add(node.field);
  };
  visit(expression);
  return [...out];
}
