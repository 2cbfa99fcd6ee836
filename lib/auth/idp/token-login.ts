import { decodeJwt } from "jose";
import type { Application } from "../../core/application.ts";
import { Context } from "../../core/context.ts";
import { DomainError, ValidationError, type ErrorCode } from "../../core/errors.ts";
import { errorFields, log } from "../../core/log.ts";
import { countEvent } from "../../core/metrics.ts";
import { readJsonBody } from "../../http/body.ts";
import { HttpError } from "../../http/errors.ts";
import type { HttpRequest } from "../../http/request.ts";
import { json, type HttpResponse } from "../../http/response.ts";
import { emailVerified, verifyIdToken } from "./id-token.ts";
import { loginAs } from "./login.ts";
import type { IdpProvider } from "./provider.ts";
import { IdpRefusal, type IdpReason } from "./refusal.ts";

/** A refused token login: the REST error shape plus the stable `reason`. */
export class IdpTokenError extends DomainError {
  constructor(
    status: number,
    code: ErrorCode,
    readonly reason: IdpReason,
    message: string,
    /** A 503 says when to try again (the `Retry-After` header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(status, code, message);
  }

  override toJSON(): { code: number; message: string; reason: IdpReason } {
    return { ...super.toJSON(), reason: this.reason };
  }
}

const MESSAGES: Partial<Record<IdpReason, string>> = {
  HOSTED_DOMAIN_REFUSED: "This account is not in the allowed hosted domain",
  EMAIL_DOMAIN_NOT_ALLOWED: "This email domain may not log in",
  EMAIL_NOT_VERIFIED: "This provider has not verified the email address, which this domain rule needs",
  PROVIDER_UNAVAILABLE: "The identity provider could not be reached: try again later",
};

/** An unreachable provider is usually back within seconds (a cold issuer, a network blip). */
const PROVIDER_RETRY_SECONDS = 5;

function isJson(request: HttpRequest): boolean {
  const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** `{tokens: {id_token, ...}}` (the provider's token response, kept encrypted) or `{token: "<ID token>"}`. */
function readBody(request: HttpRequest): { idToken: string; tokens: Record<string, unknown> } {
  // Required even for an empty body: a form post from another site must not reach the login.
  if (!isJson(request)) throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json");
  const body = readJsonBody(request);
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ValidationError([{ path: "/", message: "must be an object with tokens or token" }]);
  const { tokens, token, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new ValidationError(extra.map((k) => ({ path: `/${k}`, message: "is not accepted" })));
  if ((tokens === undefined) === (token === undefined)) throw new ValidationError([{ path: "/", message: "send exactly one of tokens or token" }]);
  if (token !== undefined) {
    if (typeof token !== "string" || token.length === 0) throw new ValidationError([{ path: "/token", message: "must be an ID token (a JWT string)" }]);
    return { idToken: token, tokens: { id_token: token } };
  }
  if (typeof tokens !== "object" || tokens === null || Array.isArray(tokens)) throw new ValidationError([{ path: "/tokens", message: "must be an object" }]);
  const idToken = (tokens as Record<string, unknown>).id_token;
  if (typeof idToken !== "string" || idToken.length === 0) throw new ValidationError([{ path: "/tokens/id_token", message: "is required (a JWT string)" }]);
  return { idToken, tokens: tokens as Record<string, unknown> };
}

/** With several Idp services, the token goes to the one whose issuer signed it (checked again on verify). */
function providerFor(providers: readonly IdpProvider[], idToken: string): IdpProvider | undefined {
  if (providers.length === 1) return providers[0];
  let iss: string | undefined;
  try {
    iss = decodeJwt(idToken).iss;
  } catch {
    return providers[0];
  }
  return providers.find((p) => iss !== undefined && new URL(p.options.issuer).href.replace(/\/$/, "") === iss.replace(/\/$/, "")) ?? providers[0];
}

/** POST auth/idp/token: logs in like the email login; never links to the caller's session. */
export async function tokenLogin(app: Application, providers: readonly IdpProvider[], request: HttpRequest): Promise<HttpResponse> {
  const { idToken, tokens } = readBody(request);
  const provider = providerFor(providers, idToken);
  if (!provider) throw new HttpError(404, "NOT_FOUND", "No Idp provider is configured");
  try {
    const { issuer, keys } = await provider.keys();
    const claims = await verifyIdToken(idToken, keys, {
      issuer,
      audiences: provider.audiences,
      hostedDomain: provider.options.hostedDomain,
      allowedEmailDomains: provider.options.allowedEmailDomains,
      allowUnverifiedEmailDomains: provider.options.allowUnverifiedEmailDomains,
    });
    const ctx = new Context({ requestId: request.requestId });
    const result = await loginAs(app, provider, ctx, claims, tokens, emailVerified(claims));
    const { setCookie, ...body } = result;
    return { ...json(200, body, { "cache-control": "no-store" }), cookies: [setCookie] };
  } catch (error) {
    if (!(error instanceof IdpRefusal)) throw error;
    countEvent("LoginFailures");
    log.warn("idp token login refused", { requestId: request.requestId, reason: error.reason, detail: error.detail });
    if (error.reason === "PROVIDER_UNAVAILABLE")
      throw new IdpTokenError(503, "INTERNAL_SERVER_ERROR", error.reason, MESSAGES.PROVIDER_UNAVAILABLE ?? "", PROVIDER_RETRY_SECONDS);
    if (error.reason === "LOGIN_FAILED") {
      log.error("idp token login failed", { requestId: request.requestId, ...errorFields(error) });
      throw error;
    }
    const status = error.reason === "ID_TOKEN_INVALID" ? 401 : 403;
    throw new IdpTokenError(
      status,
      status === 401 ? "UNAUTHENTICATED" : "PERMISSION_DENIED",
      error.reason,
      MESSAGES[error.reason] ?? "The ID token is not valid",
    );
  }
}
