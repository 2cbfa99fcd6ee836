import type { CacheRenderer } from "../../cli/cache.ts";
import { idpRoutes } from "./handler.ts";

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * `schema-cache/idp-functions.json`, included by serverless.yml: the Idp Lambda with one API
 * Gateway route per configured url (the url is an option, so the routes are rendered, not typed
 * by hand); nothing when the application configures no Idp service.
 */
export const idpCache: CacheRenderer = (app) => {
  const routes = idpRoutes(app);
  const functions =
    routes.length === 0
      ? {}
      : { idp: { handler: "functions/idp.handler", description: "Idp provider: browser flow and token login", events: routes.map((r) => ({ httpApi: r })) } };
  return { "idp-functions.json": json(functions) };
};
