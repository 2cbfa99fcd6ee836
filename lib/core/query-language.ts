import {
  checkExpression as checkExpressionOf,
  checkQuery as checkQueryOf,
  parseFilter as parseFilterOf,
  parseQuery as parseQueryOf,
  planDynamoQuery as planDynamoQueryOf,
  QueryError,
} from "../query/index.ts";
import { BadQueryError } from "./errors.ts";

export { expressionFields, printExpression, printQuery, type Expression, type FilterLimits, DEFAULT_FILTER_LIMITS } from "../query/index.ts";

/**
 * The query language as the domain speaks it. lib/query sits below core and raises its own
 * QueryError; here it becomes the domain's BadQueryError (same message, same `errors`), which
 * every face answers as BAD_QUERY. Core calls the language's refusing functions through these.
 */
export function asDomainError(error: unknown): unknown {
  return error instanceof QueryError ? new BadQueryError(error.message, error.errors) : error;
}

function refusingAsDomain<A extends unknown[], R>(run: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return run(...args);
    } catch (error) {
      throw asDomainError(error);
    }
  };
}

export const parseQuery = refusingAsDomain(parseQueryOf);
export const parseFilter = refusingAsDomain(parseFilterOf);
export const checkQuery = refusingAsDomain(checkQueryOf);
export const checkExpression = refusingAsDomain(checkExpressionOf);
export const planDynamoQuery = refusingAsDomain(planDynamoQueryOf);
