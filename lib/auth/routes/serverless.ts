import type { Application } from "../../core/application.ts";
import { authRoutes } from "./list.ts";
import { sessionRoutes } from "./session-routes.ts";

const HANDLER = "functions/auth.handler";
/** The service's own routes (keys, me, refresh, logout, idents): no mail, password or Idp code. */
const SESSION_HANDLER = "functions/auth-session.handler";

/**
 * The auth routes as Lambda functions behind API Gateway, grouped like the derived REST routes:
 * one function per route (`rest.packaging: route`, the default), else one for all of them. Per
 * route, the service's own routes run in a lighter function (functions/auth-session.ts) than the
 * providers' (functions/auth.ts: SES, password hashes, openid-client, the input validators).
 */
export function authFunctions(
  app: Application,
): Record<string, { handler: string; description: string; events: { httpApi: { method: string; path: string } }[] }> {
  const routes = authRoutes(app);
  if (routes.length === 0) return {};
  const event = (r: { method: string; path: string }) => ({ httpApi: { method: r.method, path: r.path } });
  if ((app.definition.rest?.packaging ?? "route") !== "route") {
    return { auth: { handler: HANDLER, description: "authentication routes", events: routes.map(event) } };
  }
  const session = new Set(sessionRoutes().map((r) => r.id));
  return Object.fromEntries(
    routes.map((r) => [r.id, { handler: session.has(r.id) ? SESSION_HANDLER : HANDLER, description: `${r.method} ${r.path}`, events: [event(r)] }]),
  );
}
