/** Every query error points at the one input that carries the query text. */
export const QUERY_PATH = "/q";

/**
 * A query the language refuses (syntax, fields, values, an order no index serves). The query
 * language is the bottom layer and knows no faces: lib/core turns this into its BadQueryError
 * (lib/core/query-language.ts), which every face answers as BAD_QUERY.
 */
export class QueryError extends Error {
  /** The name faces answer it with (lib/core's BadQueryError carries the same). */
  readonly code = "BAD_QUERY";

  constructor(
    message: string,
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super(message);
    this.name = "QueryError";
  }
}

export function queryError(message: string): QueryError {
  return new QueryError(message, [{ path: QUERY_PATH, message }]);
}

export function queryErrors(messages: string[]): QueryError {
  const first = messages[0] ?? "invalid query";
  const summary = messages.length > 1 ? `${first} (and ${messages.length - 1} more)` : first;
  return new QueryError(
    summary,
    messages.map((message) => ({ path: QUERY_PATH, message })),
  );
}
