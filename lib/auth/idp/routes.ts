import { schemaRef } from "../routes/contract.ts";
import type { AuthRoute } from "../routes/route.ts";
import { idpProviders, type IdpProvider } from "./provider.ts";
import { completeFlow, startFlow } from "./browser-flow.ts";
import { tokenLogin } from "./token-login.ts";

export const TOKEN_PATH = "/auth/idp/token";

function routeId(url: string, suffix: string): string {
  return `auth-${url
    .replace(/^\/auth\//, "")
    .replace(/^\//, "")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .toLowerCase()}-${suffix}`.slice(0, 40);
}

/**
 * The Idp provider's routes, served by the authentication service's function like the
 * other auth routes. All three skip the CSRF Origin check: the callback is a cross-site
 * top-level navigation from the provider, guarded by the sealed state cookie, PKCE and the nonce;
 * token login proves itself by the ID token and requires a JSON body, which no cross-site form sends.
 * POST /auth/idp/token is one route whatever the number of Idp services: the first declares it.
 */
export function idpRoutes(provider: IdpProvider): AuthRoute[] {
  const url = provider.options.url;
  const routes: AuthRoute[] = [
    {
      method: "GET",
      path: url,
      id: routeId(url, "start"),
      operation: "Auth.Idp.Start",
      csrfExempt: true,
      summary: "Starts the browser flow (PKCE, nonce); optional `redirect` checked against authorized_uris",
      // Every failure (the provider unreachable) is a redirect to redirects.failure too.
      contract: {
        caller: "none",
        store: false,
        query: { redirect: "Where to land after the login: one of authorized_uris, else redirects.success" },
        errors: [],
        answers: {
          302: { description: "To the provider's authorization endpoint (the state cookie set), or redirects.failure", redirect: true, cookie: true },
        },
      },
      handle: ({ http }) => startFlow(provider, http),
    },
    {
      method: "GET",
      path: provider.callbackPath,
      id: routeId(url, "callback"),
      operation: "Auth.Idp.Callback",
      csrfExempt: true,
      summary: "Completes the browser flow, then redirects to the target (or redirects.failure with a reason)",
      // Every refusal, and any error after the state check, ends on redirects.failure?reason=.
      contract: {
        caller: "none",
        store: false,
        query: { code: "The provider's authorization code", state: "The state the flow started with", error: "The provider's refusal" },
        errors: [],
        answers: { 302: { description: "To the target, logged in (session cookie), or redirects.failure?reason=", redirect: true, cookie: true } },
      },
      handle: ({ app, http }) => completeFlow(app, provider, http),
    },
  ];
  const all = idpProviders(provider.app.services());
  if (all[0] === provider) {
    routes.push({
      method: "POST",
      path: TOKEN_PATH,
      id: "auth-idp-token",
      operation: "Auth.Idp.Token",
      csrfExempt: true,
      summary: "Logs in with an ID token: body {tokens: {id_token, ...}} or {token}",
      contract: {
        caller: "none",
        store: true,
        body: schemaRef("IdpTokenLogin"),
        // 401 ID_TOKEN_INVALID, 403 HOSTED_DOMAIN_REFUSED / EMAIL_DOMAIN_NOT_ALLOWED, 409 ACCOUNT_EXISTS, 503 PROVIDER_UNAVAILABLE.
        errors: [401, 403, 409, 503],
        answers: { 200: { description: "Logged in: the token response, and the session cookie", schema: schemaRef("TokenResponse"), cookie: true } },
      },
      handle: ({ app, http }) => tokenLogin(app, all, http),
    });
  }
  return routes;
}
