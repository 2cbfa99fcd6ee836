import { GraphQLError } from "graphql";
import { DomainError } from "../core/errors.ts";
import { errorFields, log } from "../core/log.ts";

/** Error codes of the GraphQL face beyond the domain's (`DomainError.code`). */
export const GRAPHQL_PARSE_FAILED = "GRAPHQL_PARSE_FAILED";
export const GRAPHQL_VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED";

function code(error: GraphQLError): unknown {
  return error.extensions.code;
}

function rebuilt(error: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    ...(error.path ? { path: error.path } : {}),
    extensions,
  });
}

/**
 * Every error leaves with `extensions.code`, which clients branch on: a domain error keeps its code (and the
 * validation `errors` list); an error already coded upstream (parse, validation, limits, scalars)
 * keeps it; an unexpected error is INTERNAL_SERVER_ERROR with the request id and nothing else, its
 * detail going to the log under the same id.
 */
export function formatError(error: GraphQLError, requestId: string): GraphQLError {
  const original = error.originalError;
  if (original instanceof DomainError) {
    return rebuilt(error, original.message, { code: original.code, ...(original.errors.length > 0 ? { errors: original.errors } : {}) });
  }
  if (original instanceof GraphQLError || original === undefined) {
    if (typeof code(error) === "string") return error;
    // Without a path the error is about the request itself (e.g. a variable of the wrong type).
    return rebuilt(error, error.message, { ...error.extensions, code: error.path ? "INTERNAL_SERVER_ERROR" : "BAD_USER_INPUT" });
  }
  log.error("GraphQL resolver failed", { requestId, path: error.path?.join("."), ...errorFields(original) });
  return rebuilt(error, "Internal error", { code: "INTERNAL_SERVER_ERROR", requestId });
}
