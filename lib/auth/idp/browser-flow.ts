import { createHash, timingSafeEqual } from "node:crypto";
import type * as Oidc from "openid-client";
import { openIdClient } from "./oidc.ts";
import type { Application } from "../../core/application.ts";
import { Context } from "../../core/context.ts";
import { errorFields, log } from "../../core/log.ts";
import { countEvent } from "../../core/metrics.ts";
import type { HttpRequest } from "../../http/request.ts";
import type { HttpResponse } from "../../http/response.ts";
import { emailVerified, verifyIdToken } from "./id-token.ts";
import { loginAs } from "./login.ts";
import type { IdpProvider } from "./provider.ts";
import { IdpRefusal, type IdpReason } from "./refusal.ts";
import { clearedStateCookie, openState, readCookie, sealState, stateCookie, stateId, STATE_LIFETIME_SECONDS, type FlowState } from "./state-cookie.ts";
import { authorizedTarget, failureTarget } from "./targets.ts";

function redirect(location: string, cookies: string[]): HttpResponse {
  // no-store: a cached redirect would replay a state or a session.
  return { statusCode: 302, headers: { location, "cache-control": "no-store" }, cookies };
}

/**
 * The origin the provider sends the browser back to (the redirect_uri's): the deployed API's
 * public URL when configured (`PUBLIC_URL`, as for mailed links), else where this request arrived.
 * Host names the API itself behind API Gateway (it routes by Host); X-Forwarded-Proto is the
 * caller's to write, so only `http` or `https` is taken from it, never a URL.
 */
function requestOrigin(provider: IdpProvider, request: HttpRequest): string {
  const configured = publicOrigin(provider.env.PUBLIC_URL);
  if (configured) return configured;
  const host = request.headers.host ?? "localhost";
  const forwarded = request.headers["x-forwarded-proto"]?.trim().toLowerCase();
  const proto = forwarded === "http" || forwarded === "https" ? forwarded : provider.secureCookies ? "https" : "http";
  return `${proto}://${host}`;
}

function publicOrigin(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function sameText(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** GET <url>: PKCE S256, nonce and state in the sealed cookie, then off to the provider. */
export async function startFlow(provider: IdpProvider, request: HttpRequest): Promise<HttpResponse> {
  const { options } = provider;
  // The Referer is never read: only an explicit, authorized `redirect` changes the target.
  const target = authorizedTarget(request.query.redirect, provider.prefixes) ?? options.redirects.success;
  let configuration: Oidc.Configuration;
  try {
    configuration = await provider.configuration();
  } catch (error) {
    return failed(provider, error, request);
  }
  const oidc = openIdClient(provider.app);
  const flow: FlowState = {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier: oidc.randomPKCECodeVerifier(),
    target,
    redirectUri: provider.redirectUri(requestOrigin(provider, request)),
  };
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: flow.redirectUri,
    response_type: "code",
    scope: options.scope,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
    ...(options.hostedDomain ? { hd: options.hostedDomain } : {}),
  });
  const sealed = await sealState(flow, provider.secret);
  return redirect(url.href, [stateCookie(provider.stateCookieName, sealed, cookiePath(provider), provider.secureCookies)]);
}

/** The cookie must reach the callback: `<url>`, or `/` when a custom redirect_uri lives elsewhere. */
export function cookiePath(provider: IdpProvider): string {
  const custom = provider.options.redirect_uri ? new URL(provider.options.redirect_uri).pathname : undefined;
  return custom === undefined || custom.startsWith(`${provider.options.url}/`) ? provider.options.url : "/";
}

/** GET <url>/callback: every check, the code exchange, the login, then the target; else the failure page. */
export async function completeFlow(app: Application, provider: IdpProvider, request: HttpRequest): Promise<HttpResponse> {
  const cleared = clearedStateCookie(provider.stateCookieName, cookiePath(provider), provider.secureCookies);
  try {
    const flow = await openState(readCookie(request.cookies, provider.stateCookieName), provider.secret);
    const returned = request.query.state;
    if (!flow || typeof returned !== "string" || !sameText(returned, flow.state)) throw new IdpRefusal("STATE_INVALID", "missing, tampered or foreign state");
    // Single use, claimed before anything else happens: a replay fails even if this attempt fails.
    const fresh = await provider.usedStates.claim(stateId(flow.state), Math.floor(Date.now() / 1000) + STATE_LIFETIME_SECONDS + 60);
    if (!fresh) throw new IdpRefusal("STATE_USED", "state already used");
    if (request.query.error !== undefined) throw new IdpRefusal("PROVIDER_ERROR", `provider answered ${request.query.error.slice(0, 64)}`);
    const tokens = await exchange(provider, flow, request);
    const { issuer, keys } = await provider.keys();
    const claims = await verifyIdToken(String(tokens.id_token), keys, {
      issuer,
      audiences: [provider.options.clientId],
      nonce: flow.nonce,
      hostedDomain: provider.options.hostedDomain,
      allowedEmailDomains: provider.options.allowedEmailDomains,
      allowUnverifiedEmailDomains: provider.options.allowUnverifiedEmailDomains,
    });
    const ctx = new Context({ requestId: request.requestId });
    const result = await loginAs(app, provider, ctx, claims, { ...tokens }, emailVerified(claims));
    return redirect(flow.target, [cleared, result.setCookie]);
  } catch (error) {
    const answer = failed(provider, error, request);
    return { ...answer, cookies: [cleared] };
  }
}

async function exchange(provider: IdpProvider, flow: FlowState, request: HttpRequest): Promise<Oidc.TokenEndpointResponse> {
  const configuration = await provider.configuration();
  const current = new URL(flow.redirectUri);
  for (const [name, value] of Object.entries(request.query)) current.searchParams.set(name, value);
  try {
    return await openIdClient(provider.app).authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw exchangeRefusal(provider, error);
  }
}

function exchangeRefusal(provider: IdpProvider, error: unknown): IdpRefusal {
  if (error instanceof IdpRefusal) return error;
  const oidc = openIdClient(provider.app);
  const code = (error as { code?: string }).code ?? "";
  const name = (error as Error).name;
  if (error instanceof oidc.AuthorizationResponseError) return new IdpRefusal("PROVIDER_ERROR", error.error);
  // invalid_grant: a replayed or foreign code, or a verifier that does not match the challenge.
  if (error instanceof oidc.ResponseBodyError) return new IdpRefusal("CODE_REJECTED", error.error);
  if (code.startsWith("OAUTH_JWT") || code === "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED" || code === "OAUTH_INVALID_RESPONSE") {
    return new IdpRefusal("ID_TOKEN_INVALID", code);
  }
  if (name === "TypeError" || name === "AbortError" || name === "TimeoutError" || code === "OAUTH_RESPONSE_IS_NOT_JSON") {
    return new IdpRefusal("PROVIDER_UNAVAILABLE", code || name);
  }
  return new IdpRefusal("CODE_REJECTED", code || name);
}

/** Any failure: to `redirects.failure?reason=<CODE>`, the detail in the log only. */
function failed(provider: IdpProvider, error: unknown, request: HttpRequest): HttpResponse {
  countEvent("LoginFailures");
  const reason: IdpReason | string =
    error instanceof IdpRefusal
      ? error.reason
      : typeof (error as { reason?: unknown }).reason === "string"
        ? String((error as { reason: string }).reason)
        : "LOGIN_FAILED";
  if (error instanceof IdpRefusal || reason !== "LOGIN_FAILED") {
    log.warn("idp login refused", { requestId: request.requestId, reason, detail: error instanceof IdpRefusal ? error.detail : (error as Error).message });
  } else {
    log.error("idp login failed", { requestId: request.requestId, ...errorFields(error) });
  }
  return redirect(failureTarget(provider.options.redirects.failure, reason), []);
}
