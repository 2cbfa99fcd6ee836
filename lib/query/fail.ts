import { BadQueryError } from "../core/errors.ts";

/** Every query error points at the one input that carries the query text. */
export const QUERY_PATH = "/q";

export function queryError(message: string): BadQueryError {
  return new BadQueryError(message, [{ path: QUERY_PATH, message }]);
}

export function queryErrors(messages: string[]): BadQueryError {
  const first = messages[0] ?? "invalid query";
  const summary = messages.length > 1 ? `${first} (and ${messages.length - 1} more)` : first;
  return new BadQueryError(
    summary,
    messages.map((message) => ({ path: QUERY_PATH, message })),
  );
}
