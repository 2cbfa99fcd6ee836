import type { Application } from "../../core/application.ts";
import { httpHandler } from "../../http/handler.ts";
import { HttpError, MethodNotAllowedError } from "../../http/errors.ts";
import { completeFlow, startFlow } from "./browser-flow.ts";
import { idpProviders } from "./provider.ts";
import { tokenLogin } from "./token-login.ts";

export const TOKEN_PATH = "/auth/idp/token";

/** The API Gateway routes of every configured Idp service (spec 4.4), for serverless.yml. */
export function idpRoutes(app: Application): { method: string; path: string }[] {
  const providers = idpProviders(app.services());
  if (providers.length === 0) return [];
  return [
    ...providers.flatMap((p) => [
      { method: "GET", path: p.options.url },
      { method: "GET", path: p.callbackPath },
    ]),
    { method: "POST", path: TOKEN_PATH },
  ];
}

/**
 * The Idp Lambda: GET <url>, GET <url>/callback and POST /auth/idp/token. No CSRF Origin check
 * here by design (spec 4.4): the callback is a cross-site top-level navigation from the provider,
 * guarded by the state cookie, PKCE and the nonce; token login proves itself by the ID token and
 * requires a JSON body, which a cross-site form cannot send.
 */
export function idpHandler(app: Application) {
  const providers = idpProviders(app.services());
  return httpHandler("idp", async (request) => {
    const path = request.path.replace(/\/+$/, "") || "/";
    if (path === TOKEN_PATH) {
      if (request.method !== "POST") throw new MethodNotAllowedError(["POST"]);
      return tokenLogin(app, providers, request);
    }
    for (const provider of providers) {
      if (path !== provider.options.url && path !== provider.callbackPath) continue;
      if (request.method !== "GET" && request.method !== "HEAD") throw new MethodNotAllowedError(["GET"]);
      return path === provider.options.url ? startFlow(provider, request) : completeFlow(app, provider, request);
    }
    throw new HttpError(404, "NOT_FOUND", "Not found");
  });
}
