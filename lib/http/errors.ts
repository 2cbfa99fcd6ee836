import { DomainError, type ErrorCode } from "../core/errors.ts";
import { errorFields, log } from "../core/log.ts";
import { json, type HttpResponse } from "./response.ts";

/** An HTTP-only refusal (wrong media type, body too large, wrong method, malformed JSON). */
export class HttpError extends DomainError {
  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(status, code, message);
  }
}

/**
 * A cookie-authenticated write from an Origin the API does not allow (CSRF): 403 with `reason`
 * ORIGIN_REFUSED, the body the authentication routes' refusals have (their `reason` list names it).
 */
export class OriginRefusedError extends HttpError {
  readonly reason = "ORIGIN_REFUSED";

  constructor(message: string) {
    super(403, "PERMISSION_DENIED", message);
  }

  override toJSON(): { code: number; message: string; reason: "ORIGIN_REFUSED" } {
    return { ...super.toJSON(), reason: this.reason };
  }
}

export class MethodNotAllowedError extends HttpError {
  constructor(allowed: string[]) {
    super(405, "METHOD_NOT_ALLOWED", "Method not allowed", { allow: allowed.join(", ") });
  }
}

/**
 * The one place an error becomes an HTTP answer. Domain errors say what the client did wrong;
 * anything else is ours: the client gets a request id, the log gets the stack under the same id.
 */
export function errorResponse(error: unknown, requestId: string): HttpResponse {
  if (error instanceof DomainError) {
    const headers: Record<string, string> = error instanceof HttpError ? { ...error.headers } : {};
    // Only a number: an error class may declare the field and leave it unset (an AuthError that is no throttle).
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
    return json(error.status, error.toJSON(), headers);
  }
  log.error("unhandled error", { requestId, ...errorFields(error) });
  return json(500, { code: 500, message: "Internal error", requestId });
}
