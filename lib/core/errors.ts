/**
 * One error hierarchy for the whole domain. Faces (REST, GraphQL, WebSocket, CLI) map these in one
 * place each; nothing below a face knows about HTTP statuses beyond the number carried here.
 */

export interface FieldError {
  /** JSON pointer into the offending input, e.g. "/email" or "/tags/0/name". */
  path: string;
  message: string;
}

export type ErrorCode =
  | "BAD_USER_INPUT"
  | "BAD_QUERY"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PRECONDITION_FAILED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "THROTTLED"
  | "UNAVAILABLE"
  | "INTERNAL_SERVER_ERROR";

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The body every face may show to a client: never a stack, never an internal detail. */
  toJSON(): { code: number; message: string; errors?: FieldError[] } {
    return this.errors.length > 0 ? { code: this.status, message: this.message, errors: this.errors } : { code: this.status, message: this.message };
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldError[], message = "Validation failed") {
    super(400, "BAD_USER_INPUT", message, errors);
  }
}

/** A query-language or pagination problem: syntax, unknown field, bad value, bad or foreign token. */
export class BadQueryError extends DomainError {
  constructor(message: string, errors: FieldError[] = []) {
    super(400, "BAD_QUERY", message, errors);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = "Authentication required") {
    super(401, "UNAUTHENTICATED", message);
  }
}

export class PermissionError extends DomainError {
  constructor(message = "Permission denied") {
    super(403, "PERMISSION_DENIED", message);
  }
}

export class NotFoundError extends DomainError {
  constructor(message = "Not found") {
    super(404, "NOT_FOUND", message);
  }
}

export class ConflictError extends DomainError {
  constructor(message = "Conflict") {
    super(409, "CONFLICT", message);
  }
}

/** The caller's expected version (If-Match) is not the stored one. */
export class PreconditionFailedError extends DomainError {
  constructor(message = "The record was changed by someone else") {
    super(412, "PRECONDITION_FAILED", message);
  }
}

export class ThrottledError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = "Too many requests",
  ) {
    super(429, "THROTTLED", message);
  }
}

/** A dependency (the database) did not answer in time, even after retries: try again later. */
export class UnavailableError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = "Service temporarily unavailable",
  ) {
    super(503, "UNAVAILABLE", message);
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
