import type { Application } from "../core/application.ts";
import type { HttpMethod, OperationDefinition } from "../core/operation.ts";

export type CrudAction = "create" | "get" | "update" | "patch" | "delete" | "query";

export type RouteTarget =
  | { kind: "crud"; model: string; action: CrudAction }
  | { kind: "modelOperation"; model: string; operation: string; isStatic: boolean }
  | { kind: "serviceOperation"; service: string; operation: string }
  | { kind: "openapi" };

export interface Route {
  /** API Gateway's route key, e.g. `GET /posts/{slug}`: the router's O(1) lookup key. */
  key: string;
  method: HttpMethod;
  /** The path template, parameters in braces: `/posttags/{post}/{tag}`. */
  path: string;
  /** Names of the `{parameters}` in path order (key fields for model routes). */
  params: string[];
  target: RouteTarget;
  /** The model or service the route belongs to, for per-model packaging. */
  group: string;
  /** A stable function-name-safe id: `post-get`, `post-publish`, `publisher-publishpost`. */
  id: string;
}

function route(method: HttpMethod, path: string, target: RouteTarget, group: string, id: string): Route {
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  return { key: `${method} ${path}`, method, path, params, target, group, id };
}

/** A record's path: `/posts/{slug}`, `/posttags/{post}/{tag}`. */
export function recordPath(plural: string, keyFields: readonly string[]): string {
  return `/${plural}/${keyFields.map((f) => `{${f}}`).join("/")}`;
}

/** A model's CRUD route (`post-get` for GET of a Post). */
export function crudRoute(method: HttpMethod, path: string, model: string, action: CrudAction): Route {
  return route(method, path, { kind: "crud", model, action }, model, `${model.toLowerCase()}-${action}`);
}

function normalizePath(path: string): string {
  const trimmed = `/${path.replace(/^\/+|\/+$/g, "")}`;
  return trimmed;
}

/**
 * The REST surface derived from the registry: CRUD and query per model, model
 * operations under the record (or the collection, for static ones), service operations under
 * the service name. Nothing is listed by hand; a clash between two derived routes is an error.
 */
export function deriveRoutes(app: Application): Route[] {
  const routes: Route[] = [];
  for (const info of app.models()) {
    const base = `/${info.plural}`;
    const item = recordPath(info.plural, info.keyFields);
    const name = info.name.toLowerCase();
    const crud = (method: HttpMethod, path: string, action: CrudAction) => routes.push(crudRoute(method, path, info.name, action));
    crud("POST", base, "create");
    crud("PUT", base, "query");
    crud("GET", item, "get");
    crud("PUT", item, "update");
    crud("PATCH", item, "patch");
    crud("DELETE", item, "delete");
    for (const operation of info.operations) {
      if (operation.rest === false) continue;
      const method = operation.rest?.method ?? "PUT";
      assertQueryParameters(info.name, operation, method);
      const segment = operation.name.toLowerCase();
      const path = operation.rest?.path ? normalizePath(operation.rest.path) : `${operation.isStatic ? base : item}/${segment}`;
      const target: RouteTarget = { kind: "modelOperation", model: info.name, operation: operation.name, isStatic: operation.isStatic };
      routes.push(route(method, path, target, info.name, `${name}-op-${segment}`));
    }
  }
  for (const entry of app.services()) {
    for (const operation of entry.operations) {
      if (operation.rest === false) continue;
      const method = operation.rest?.method ?? "PUT";
      assertQueryParameters(entry.name, operation, method);
      const segment = operation.name.toLowerCase();
      const path = operation.rest?.path ? normalizePath(operation.rest.path) : `/${entry.name.toLowerCase()}/${segment}`;
      const target: RouteTarget = { kind: "serviceOperation", service: entry.name, operation: operation.name };
      routes.push(route(method, path, target, entry.name, `${entry.name.toLowerCase()}-${segment}`));
    }
  }
  routes.push(route("GET", "/openapi.json", { kind: "openapi" }, "openapi", "openapi"));
  assertNoClash(routes);
  return routes;
}

/**
 * Whether the route reads a request body (and so may answer 413 or 415): GET routes take none
 * (browsers cannot send one; a GET operation's parameters come from the query string), and
 * neither do DELETE of a record or the OpenAPI document.
 */
export function readsBody(route: Route): boolean {
  const t = route.target;
  if (route.method === "GET" || t.kind === "openapi") return false;
  return !(t.kind === "crud" && t.action === "delete");
}

/**
 * A GET operation's parameters arrive as query-string text: only string parameters can be said
 * that way without guessing types, so any other is refused when the routes are derived.
 */
function assertQueryParameters(owner: string, operation: OperationDefinition, method: HttpMethod): void {
  if (method !== "GET" || !operation.input) return;
  for (const [name, schema] of Object.entries(operation.input.properties)) {
    if ((schema as { type?: unknown }).type !== "string") {
      throw new Error(
        `${owner}.${operation.name}: a GET operation takes its parameters from the query string, so '${name}' must be a string (or use PUT/POST)`,
      );
    }
  }
}

/**
 * A record read (`GET /posts/{slug}`): with per-route packaging it has a function of its own
 * (functions/rest-read.ts), which carries neither the input validators nor the OpenAPI builder.
 */
export function isRecordRead(route: Route): boolean {
  return route.target.kind === "crud" && route.target.action === "get";
}

/** Two routes that API Gateway would treat as one (same method, same shape of path) cannot coexist. */
function assertNoClash(routes: Route[]): void {
  const seen = new Map<string, Route>();
  for (const r of routes) {
    const shape = `${r.method} ${r.path.replace(/\{[^}]+\}/g, "{}")}`;
    const other = seen.get(shape);
    if (other) throw new Error(`REST routes clash: ${other.key} (${describe(other)}) and ${r.key} (${describe(r)})`);
    seen.set(shape, r);
  }
}

function describe(r: Route): string {
  const t = r.target;
  if (t.kind === "openapi") return "OpenAPI document";
  return t.kind === "crud" ? `${t.model} ${t.action}` : t.kind === "modelOperation" ? `${t.model}.${t.operation}` : `${t.service}.${t.operation}`;
}
