import type { Application } from "../../core/application.ts";
import { authenticationOf } from "../service.ts";
import type { AuthRoute } from "./route.ts";
import { sessionRoutes } from "./session-routes.ts";

/** A provider service that serves routes of its own (the email provider, the Idp provider). */
export interface RouteProvider {
  authRoutes(): AuthRoute[];
}

function hasRoutes(service: unknown): service is RouteProvider {
  return typeof (service as Partial<RouteProvider>).authRoutes === "function";
}

/** Every auth route of the application: the service's own, then each provider's. Empty without the service. */
export function authRoutes(app: Application): AuthRoute[] {
  if (!authenticationOf(app)) return [];
  return [...sessionRoutes(), ...app.services().flatMap((e) => (hasRoutes(e.service) ? e.service.authRoutes() : []))];
}
