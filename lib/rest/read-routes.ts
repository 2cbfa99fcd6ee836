import type { Application } from "../core/application.ts";
import { modelPlural } from "../core/model-info.ts";
import type { Route } from "./routes.ts";

/**
 * The record reads (`GET /posts/{slug}`) as deriveRoutes derives them, from the model declarations
 * alone: a record read's function routes with these without describing every model at its cold
 * start (the one its request reads is described when the request comes). Its routes were checked
 * against each other when it was packaged.
 */
export function recordReadRoutes(app: Application): Route[] {
  return app.modelClasses().map((cls) => {
    const params = [...cls.FRAMEWORK_PRIMARY_KEY];
    const path = `/${modelPlural(cls)}/${params.map((f) => `{${f}}`).join("/")}`;
    return { key: `GET ${path}`, method: "GET", path, params, target: { kind: "crud", model: cls.name, action: "get" }, group: cls.name, id: `${cls.name.toLowerCase()}-get` };
  });
}
