import { DomainError, type ErrorCode } from "../core/errors.ts";

/** Every reason an auth route may give (README, Authentication: error codes). */
export type AuthReason =
  | "INVALID_CREDENTIALS"
  | "ACCOUNT_EXISTS"
  | "LOGIN_REQUIRED"
  | "INVALID_TOKEN"
  | "INVALID_REFRESH_TOKEN"
  | "REFRESH_TOKEN_REUSED"
  | "EMAIL_NOT_VERIFIED"
  | "REGISTRATION_CLOSED"
  | "EMAIL_DOMAIN_NOT_ALLOWED"
  | "PASSWORD_POLICY"
  | "PASSWORD_REFUSED"
  | "TOO_MANY_ATTEMPTS"
  | "LOCKED_OUT"
  | "LAST_IDENT"
  | "IDENT_MIGRATION_REQUIRED"
  | "ORIGIN_REFUSED";

const CODES: Record<number, ErrorCode> = {
  400: "BAD_USER_INPUT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "CONFLICT",
  429: "THROTTLED",
};

/**
 * An authentication refusal: the REST error shape (`code` is the HTTP status, as everywhere) plus
 * `reason`, the stable name clients branch on. GraphQL would show `reason` as `extensions.code`.
 */
export class AuthError extends DomainError {
  constructor(
    status: number,
    readonly reason: AuthReason,
    message: string,
    readonly retryAfterSeconds?: number,
    errors: { path: string; message: string }[] = [],
  ) {
    super(status, CODES[status] ?? "BAD_USER_INPUT", message, errors);
  }

  override toJSON(): { code: number; message: string; reason: AuthReason; errors?: { path: string; message: string }[] } {
    return { ...super.toJSON(), reason: this.reason };
  }
}

export const invalidCredentials = (): AuthError => new AuthError(401, "INVALID_CREDENTIALS", "Wrong email or password");
export const loginRequired = (): AuthError => new AuthError(401, "LOGIN_REQUIRED", "Log in first");
