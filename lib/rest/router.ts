import { NotFoundError } from "../core/errors.ts";
import { MethodNotAllowedError } from "../http/errors.ts";
import type { Route } from "./routes.ts";

export interface Match {
  route: Route;
  /** Path parameters, percent-decoded exactly once. */
  params: Record<string, string>;
}

function segments(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

/** Whether a template (`{name}` segments match any one segment) fits a path. */
function fits(template: readonly string[], parts: readonly string[]): boolean {
  return template.length === parts.length && template.every((t, i) => (t.startsWith("{") && t.endsWith("}")) || t === parts[i]);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new NotFoundError("Malformed percent-encoding in the path");
  }
}

/** A route another function serves (the auth routes): the catch-all only lists its method. */
export interface ForeignRoute {
  method: string;
  path: string;
}

/**
 * Finds a route by its API Gateway route key in O(1) (the normal path: one function per route);
 * template matching is only for the catch-all, to tell 404 from 405 and list what is allowed.
 * The catch-all answers for every path of the API, so it also knows the methods of the routes
 * other functions serve: a wrong method there is a 405 naming them, not a 404.
 */
export class Router {
  private readonly byKey = new Map<string, Route>();
  /** Each route's template split once, not on every request. */
  private readonly templates = new Map<Route, string[]>();
  private readonly foreign: { method: string; template: string[] }[];

  constructor(
    readonly routes: readonly Route[],
    foreign: readonly ForeignRoute[] = [],
  ) {
    for (const route of routes) {
      this.byKey.set(route.key, route);
      this.templates.set(route, segments(route.path));
    }
    this.foreign = foreign.map((r) => ({ method: r.method, template: segments(r.path) }));
  }

  byRouteKey(routeKey: string, rawPath: string): Match | undefined {
    const route = this.byKey.get(routeKey);
    if (!route) return undefined;
    const params = this.extract(route, segments(rawPath));
    return params ? { route, params } : undefined;
  }

  /** Matches a method and raw path against every template; throws 404 or 405 (with Allow). */
  match(method: string, rawPath: string): Match {
    const parts = segments(rawPath);
    const allowed: string[] = [];
    let best: (Match & { literals: number }) | undefined;
    for (const route of this.routes) {
      const params = this.extract(route, parts);
      if (!params) continue;
      allowed.push(route.method);
      // Like API Gateway, a literal segment wins over a parameter (`/posts/featured` over `/posts/{slug}`).
      const literals = parts.length - Object.keys(params).length;
      if (route.method === method && (!best || literals > best.literals)) best = { route, params, literals };
    }
    if (best) return { route: best.route, params: best.params };
    // API Gateway sends a foreign route's own method to its function, never here.
    for (const route of this.foreign) if (fits(route.template, parts)) allowed.push(route.method);
    if (allowed.length > 0) throw new MethodNotAllowedError([...new Set(allowed)]);
    throw new NotFoundError(`No route for ${method} ${rawPath}`);
  }

  private extract(route: Route, parts: string[]): Record<string, string> | undefined {
    const template = this.templates.get(route) ?? segments(route.path);
    if (template.length !== parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < template.length; i++) {
      const expected = template[i] as string;
      const actual = parts[i] as string;
      if (expected.startsWith("{") && expected.endsWith("}")) params[expected.slice(1, -1)] = decode(actual);
      else if (expected !== actual) return undefined;
    }
    return params;
  }
}
