import { authRoutes } from "../auth/index.ts";
import type { Application } from "../core/application.ts";
import { graphqlHttpRoutes } from "../graphql/http-routes.ts";
import { httpHandler } from "../http/handler.ts";
import { Router } from "../http/router.ts";
import { dispatch } from "./dispatch.ts";
import { deriveRoutes } from "./routes.ts";

/**
 * The REST Lambda handler for an application: every derived route's function (and the catch-all
 * that answers unknown routes in our format) is this one handler, finding its route by route key.
 * The catch-all knows the auth and GraphQL routes' methods too, so a wrong method there is a 405.
 */
export function restHandler(app: Application, env: NodeJS.ProcessEnv = process.env) {
  const router = new Router(deriveRoutes(app), [...authRoutes(app), ...graphqlHttpRoutes(env)]);
  return httpHandler("rest", async (request) => {
    const match = router.find(request.method, request.path, request.routeKey);
    return dispatch(app, match, request, request.requestId);
  });
}
