import type { Application } from "../core/application.ts";
import { modelPlural } from "../core/model-info.ts";
import { crudRoute, recordPath, type Route } from "./routes.ts";

/**
 * The record reads (`GET /posts/{slug}`) as deriveRoutes derives them, from the model declarations
 * alone: a record read's function routes with these without describing every model at its cold
 * start (the one its request reads is described when the request comes). Its routes were checked
 * against each other when it was packaged.
 */
export function recordReadRoutes(app: Application): Route[] {
  return app.modelClasses().map((cls) => crudRoute("GET", recordPath(modelPlural(cls), cls.FRAMEWORK_PRIMARY_KEY), cls.name, "get"));
}
