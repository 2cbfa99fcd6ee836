export type {
  AndExpression,
  CompareExpression,
  CompareOperator,
  ContainsExpression,
  Direction,
  Expression,
  Field,
  InExpression,
  IsNullExpression,
  LikeExpression,
  NotExpression,
  OrExpression,
  OrderBy,
  Predicate,
  Query,
  Value,
} from "./ast.ts";
export { expressionFields, fieldSegments } from "./ast.ts";
export { parseFilter, parseQuery } from "./parser.ts";
export { printExpression, printQuery, printValue } from "./print.ts";
export { columnOf } from "./positions.ts";
export { checkExpression, checkQuery, type CheckOptions } from "./check.ts";
export type { JsonSchema } from "./schema.ts";
export { compareRecords, evaluate, readField } from "./evaluate.ts";
export { withDefaults } from "./defaults.ts";
export { matchLike } from "./like-match.ts";
export { evaluationCost } from "./cost.ts";
export { compareStrings } from "./order.ts";
export { planDynamoQuery, type DynamoPlan, type DynamoRead, type KeyShape, type TableShape } from "./plan.ts";
export { QueryError } from "./fail.ts";
export { DEFAULT_FILTER_LIMITS, type FilterLimits } from "./limits.ts";
