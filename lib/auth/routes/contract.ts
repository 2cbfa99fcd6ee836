/**
 * What an auth route promises, declared beside its handler (lib/auth/routes/openapi.ts renders it
 * into the OpenAPI document, and the conformance test holds every live answer to it).
 */
export type Json = Record<string, unknown>;

export interface AuthAnswer {
  description: string;
  /** The JSON body's schema; none for 204 and redirects. */
  schema?: Json;
  /** The answer sets (or clears) the session cookie. */
  cookie?: boolean;
  /** A 302: `Location` is always there. */
  redirect?: boolean;
}

export interface AuthContract {
  /** The JSON body's schema: a route with one also answers 400, 413 and 415. */
  body?: Json;
  /** Query-string parameters (strings), by name, with what they mean; all optional. */
  query?: Record<string, string>;
  /** Successful answers by status. */
  answers: Record<number, AuthAnswer>;
  /** Error statuses the route itself may answer, besides the body's, the store's and 500. */
  errors: readonly number[];
  /** `none`: credentials are not read; `optional`: read when given; `user`: required (401 without). */
  caller: "none" | "optional" | "user";
  /** Reads or writes DynamoDB in a way an error can escape: 429 and 503 are possible. */
  store: boolean;
}

export const schemaRef = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** The non-empty strings `stringFields` accepts (route.ts): the same limit, the same names. */
export const STRING_FIELD: Json = { type: "string", minLength: 1, maxLength: 1024 };

/** A body of string fields, as `stringFields(request, required, optional)` reads it. */
export function stringBody(required: readonly string[], optional: Record<string, Json> = {}): Json {
  return {
    type: "object",
    additionalProperties: false,
    required: [...required],
    properties: { ...Object.fromEntries(required.map((name) => [name, STRING_FIELD])), ...optional },
  };
}
