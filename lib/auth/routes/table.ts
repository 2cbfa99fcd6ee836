import type { Application } from "../../core/application.ts";
import { NotFoundError } from "../../core/errors.ts";
import { MethodNotAllowedError } from "../../http/errors.ts";
import { resolveIdentity } from "../../http/identity.ts";
import type { HttpRequest } from "../../http/request.ts";
import type { HttpResponse } from "../../http/response.ts";
import { authenticationOf } from "../service.ts";
import type { Identity } from "../types.ts";
import { authRoutes } from "./list.ts";
import type { AuthRoute } from "./route.ts";

function matches(template: string, path: string): Record<string, string> | undefined {
  const t = template.split("/").filter(Boolean);
  const p = path.split("/").filter(Boolean);
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const part = t[i] as string;
    const given = p[i] as string;
    if (part.startsWith("{")) {
      try {
        params[part.slice(1, -1)] = decodeURIComponent(given);
      } catch {
        return undefined;
      }
    } else if (part !== given) return undefined;
  }
  return params;
}

/**
 * Dispatches a request to its auth route: by API Gateway route key, else by method and path.
 * `routes`: every auth route by default; the session routes' own function (functions/auth-session.ts)
 * serves those only.
 */
export function authDispatcher(app: Application, routes: readonly AuthRoute[] = authRoutes(app)): (request: HttpRequest) => Promise<HttpResponse> {
  const auth = authenticationOf(app);
  return async (http) => {
    if (!auth) throw new NotFoundError("Authentication is not configured");
    const allowed: string[] = [];
    for (const route of routes) {
      const params = matches(route.path, http.path);
      if (!params) continue;
      if (route.method !== http.method) {
        allowed.push(route.method);
        continue;
      }
      let identity: Promise<Identity> | undefined;
      return route.handle({
        app,
        auth,
        http,
        params,
        identity: () => (identity ??= resolveIdentity(app, http, { csrf: !route.csrfExempt })),
      });
    }
    if (allowed.length > 0) throw new MethodNotAllowedError(allowed);
    throw new NotFoundError(`No auth route ${http.method} ${http.path}`);
  };
}
