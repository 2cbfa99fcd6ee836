import type { Application } from "../../core/application.ts";
import { ValidationError, type FieldError } from "../../core/errors.ts";
import { isPlainObject } from "../../core/sanitize.ts";
import { readJsonBody } from "../../http/body.ts";
import type { HttpRequest } from "../../http/request.ts";
import type { HttpResponse } from "../../http/response.ts";
import type { AuthenticationService } from "../service.ts";
import type { Identity } from "../types.ts";
import type { AuthContract } from "./contract.ts";

export interface AuthRequest {
  app: Application;
  auth: AuthenticationService;
  http: HttpRequest;
  params: Record<string, string>;
  /** Resolved lazily: routes that need no caller never read the session table. */
  identity(): Promise<Identity>;
}

export interface AuthRoute {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** Function-name-safe id: `auth-email-login`. */
  id: string;
  /** The route's operation id (OpenAPI `operationId`). */
  operation: string;
  summary: string;
  /** The Idp routes skip the CSRF Origin check: the provider's redirect is a cross-site navigation. */
  csrfExempt?: boolean;
  /** What the OpenAPI document says of it. */
  contract: AuthContract;
  handle(request: AuthRequest): Promise<HttpResponse>;
}

/** The body as a JSON object whose fields are the given strings; anything else is a 400 naming the field. */
export function stringFields<K extends string>(
  request: HttpRequest,
  required: readonly K[],
  optional: readonly string[] = [],
): Record<K, string> & Record<string, unknown> {
  const body = readJsonBody(request);
  if (!isPlainObject(body)) throw new ValidationError([{ path: "/", message: "must be a JSON object" }]);
  const errors: FieldError[] = [];
  const known = new Set<string>([...required, ...optional]);
  for (const key of Object.keys(body)) if (!known.has(key)) errors.push({ path: `/${key}`, message: "is not an allowed field" });
  for (const key of required) {
    const value = body[key];
    if (typeof value !== "string" || value === "")
      errors.push({ path: `/${key}`, message: value === undefined ? "is required" : "must be a non-empty string" });
    else if (value.length > 1024) errors.push({ path: `/${key}`, message: "must be at most 1024 characters" });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return body as Record<K, string> & Record<string, unknown>;
}

export function redirect(location: string, cookies: string[] = []): HttpResponse {
  return { statusCode: 302, headers: { location, "cache-control": "no-store" }, ...(cookies.length > 0 ? { cookies } : {}) };
}
