import type { Application } from "../../core/application.ts";
import { NotFoundError } from "../../core/errors.ts";
import { resolveIdentity } from "../../http/identity.ts";
import type { HttpRequest } from "../../http/request.ts";
import type { HttpResponse } from "../../http/response.ts";
import { Router } from "../../http/router.ts";
import { authenticationOf } from "../service.ts";
import type { Identity } from "../types.ts";
import { authRoutes } from "./list.ts";
import type { AuthRoute } from "./route.ts";

/**
 * Dispatches a request to its auth route through the HTTP faces' one router (lib/http/router.ts):
 * by API Gateway's route key when it names one of `routes`, else by method and path (404, 405
 * with Allow, 400 for a parameter that is not valid percent-encoding). `routes`: every auth route
 * by default; the session routes' own function (functions/auth-session.ts) serves those only.
 */
export function authDispatcher(app: Application, routes: readonly AuthRoute[] = authRoutes(app)): (request: HttpRequest) => Promise<HttpResponse> {
  const auth = authenticationOf(app);
  const router = new Router(routes);
  return async (http) => {
    if (!auth) throw new NotFoundError("Authentication is not configured");
    const { route, params } = router.find(http.method, http.path, http.routeKey);
    let identity: Promise<Identity> | undefined;
    return route.handle({
      app,
      auth,
      http,
      params,
      identity: () => (identity ??= resolveIdentity(app, http, { csrf: !route.csrfExempt })),
    });
  };
}
