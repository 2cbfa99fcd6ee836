import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import { NotFoundError } from "../core/errors.ts";
import { httpHandler } from "../http/handler.ts";
import { Router } from "../http/router.ts";
import { resolveIdentity } from "../http/identity.ts";
import { readRecord } from "./read.ts";
import { recordReadRoutes } from "./read-routes.ts";

/**
 * The handler of a record read's own function (per-route packaging, functions/rest-read.ts):
 * the same route lookup, identity, domain read and answer as restHandler's, without what only the
 * other routes run (input validators, the query body, operations, the OpenAPI document). API
 * Gateway sends it only its own route; anything else is a 404, as the catch-all would answer it.
 */
export function readHandler(app: Application) {
  const router = new Router(recordReadRoutes(app));
  return httpHandler("rest", async (request) => {
    const match = router.find(request.method, request.path, request.routeKey);
    const { userId } = await resolveIdentity(app, request);
    const ctx = new Context({ requestId: request.requestId, ...(userId ? { userId } : {}) });
    const target = match.route.target;
    const info = target.kind === "crud" ? app.model(target.model) : undefined;
    if (!info) throw new NotFoundError(`No model ${target.kind === "crud" ? target.model : ""}`);
    return readRecord(app, ctx, info, match.params, request);
  });
}
