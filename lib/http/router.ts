/**
 * The one router of the HTTP faces: the REST routes (lib/rest) and the auth routes (lib/auth)
 * find their route here, with one precedence rule and one answer for each way a path can fail
 * (docs/rest.md, "Routing"):
 *
 * - A route is found by API Gateway's route key when the event carries one of ours (one function
 *   per route: API Gateway already chose), else by method and path (the catch-all, `npm start`).
 * - Paths are compared segment by segment, as sent: a `{name}` segment takes any one non-empty
 *   segment, a literal only itself. One trailing slash is ignored (`/posts/` is `/posts`).
 * - Precedence: of the routes that fit, the first segment where they differ decides, and a
 *   literal wins over a parameter (`/posts/featured` over `/posts/{slug}`, `/a/b/{x}` over
 *   `/a/{y}/c`). Two routes of one method that fit the same paths are refused when built, so
 *   the order of declaration never decides.
 * - No route fits: 404. Routes fit, none of the method: 405 with `Allow`.
 * - The chosen route's parameters are percent-decoded exactly once; one that is not valid
 *   percent-encoding is a 400 naming the parameter, before the route runs.
 */
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { MethodNotAllowedError } from "./errors.ts";

/** What the router needs of a route: its method and its path template (`/posts/{slug}`). */
export interface Routable {
  method: string;
  path: string;
}

export interface Match<R extends Routable> {
  route: R;
  /** Path parameters, percent-decoded exactly once. */
  params: Record<string, string>;
}

/** A template, split once: each segment a literal or a parameter's name. */
interface Template {
  literals: (string | undefined)[];
  names: (string | undefined)[];
  /** One character per segment, `1` a literal and `0` a parameter: the greater rank wins. */
  rank: string;
}

function template(path: string): Template {
  const literals: (string | undefined)[] = [];
  const names: (string | undefined)[] = [];
  for (const segment of segmentsOf(path)) {
    const parameter = segment.startsWith("{") && segment.endsWith("}");
    literals.push(parameter ? undefined : segment);
    names.push(parameter ? segment.slice(1, -1) : undefined);
  }
  return { literals, names, rank: literals.map((l) => (l === undefined ? "0" : "1")).join("") };
}

/** The path's segments as sent: the leading slash and one trailing slash dropped, empty ones kept. */
function segmentsOf(path: string): string[] {
  const trimmed = path.endsWith("/") ? path.slice(1, -1) : path.slice(1);
  return trimmed === "" ? [] : trimmed.split("/");
}

function fits(t: Template, parts: readonly string[]): boolean {
  if (t.literals.length !== parts.length) return false;
  for (let i = 0; i < parts.length; i++) {
    const literal = t.literals[i];
    if (literal === undefined ? parts[i] === "" : literal !== parts[i]) return false;
  }
  return true;
}

function decode(name: string, segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ValidationError([{ path: `/${name}`, message: "is not valid percent-encoding" }], "Malformed percent-encoding in the path");
  }
}

export class Router<R extends Routable> {
  private readonly byKey = new Map<string, R>();
  private readonly templates = new Map<R, Template>();
  private readonly others: { method: string; template: Template }[];

  /**
   * `others`: routes other functions serve on the same API. The REST catch-all answers every path
   * of the API, so a wrong method on one of theirs is a 405 naming their methods, not a 404.
   */
  constructor(
    readonly routes: readonly R[],
    others: readonly Routable[] = [],
  ) {
    const shapes = new Map<string, R>();
    for (const route of routes) {
      const t = template(route.path);
      const shape = `${route.method} /${t.literals.map((l) => l ?? "{}").join("/")}`;
      const clash = shapes.get(shape);
      if (clash) throw new Error(`routes ${clash.method} ${clash.path} and ${route.method} ${route.path} fit the same paths`);
      shapes.set(shape, route);
      this.byKey.set(`${route.method} ${route.path}`, route);
      this.templates.set(route, t);
    }
    this.others = others.map((r) => ({ method: r.method, template: template(r.path) }));
  }

  /** The route API Gateway chose (its route key), or undefined when the key is none of ours. */
  byRouteKey(routeKey: string, rawPath: string): Match<R> | undefined {
    const route = this.byKey.get(routeKey);
    if (!route) return undefined;
    const parts = segmentsOf(rawPath);
    const t = this.templates.get(route) as Template;
    return fits(t, parts) ? { route, params: this.params(t, parts) } : undefined;
  }

  /** By route key when API Gateway gave one of ours, else by method and path. */
  find(method: string, rawPath: string, routeKey?: string): Match<R> {
    return (routeKey === undefined ? undefined : this.byRouteKey(routeKey, rawPath)) ?? this.match(method, rawPath);
  }

  /** Matches a method and a raw path against every template: throws 404, 405 (with Allow) or 400. */
  match(method: string, rawPath: string): Match<R> {
    const parts = segmentsOf(rawPath);
    const allowed = new Set<string>();
    let best: { route: R; template: Template } | undefined;
    for (const [route, t] of this.templates) {
      if (!fits(t, parts)) continue;
      allowed.add(route.method);
      if (route.method === method && (best === undefined || t.rank > best.template.rank)) best = { route, template: t };
    }
    if (best) return { route: best.route, params: this.params(best.template, parts) };
    // API Gateway sends another function's own method to that function, never here.
    for (const other of this.others) if (fits(other.template, parts)) allowed.add(other.method);
    if (allowed.size > 0) throw new MethodNotAllowedError([...allowed]);
    throw new NotFoundError(`No route for ${method} ${rawPath}`);
  }

  private params(t: Template, parts: readonly string[]): Record<string, string> {
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      const name = t.names[i];
      if (name !== undefined) params[name] = decode(name, parts[i] as string);
    }
    return params;
  }
}
