import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { isPlainObject } from "../core/sanitize.ts";
import { readJsonBody } from "../http/body.ts";
import { resolveIdentity } from "../http/identity.ts";
import type { HttpRequest } from "../http/request.ts";
import { empty, json, type HttpResponse } from "../http/response.ts";
import { expectedVersion } from "./etag.ts";
import { openApiDocument } from "./openapi.ts";
import { readRecord, record } from "./read.ts";
import type { Match as RouterMatch } from "../http/router.ts";
import { deriveRoutes, readsBody, type Route } from "./routes.ts";

type Match = RouterMatch<Route>;

const documents = new WeakMap<Application, unknown>();

/** Built on first request from the same route table, then kept for the life of the instance. */
function openApi(app: Application): unknown {
  let document = documents.get(app);
  if (!document) {
    document = openApiDocument(app, deriveRoutes(app));
    documents.set(app, document);
  }
  return document;
}

const QUERY_FIELDS = new Set(["q", "limit", "continuationToken", "offset"]);

/** The query route's body: `{q, limit?, continuationToken?}` (`offset`: GraphQL's name for the token). */
function queryArguments(body: unknown): { q: string; limit?: number; offset?: string | null } {
  const input = body === undefined ? {} : body;
  if (!isPlainObject(input)) throw new ValidationError([{ path: "/", message: "must be a JSON object" }]);
  const errors = Object.keys(input)
    .filter((k) => !QUERY_FIELDS.has(k))
    .map((k) => ({ path: `/${k}`, message: "is not an allowed field" }));
  if (input.q !== undefined && typeof input.q !== "string") errors.push({ path: "/q", message: "must be a string" });
  if (input.limit !== undefined && typeof input.limit !== "number") errors.push({ path: "/limit", message: "must be a number" });
  const token = input.continuationToken ?? input.offset;
  if (token !== undefined && token !== null && typeof token !== "string") errors.push({ path: "/continuationToken", message: "must be a string or null" });
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    q: (input.q as string | undefined) ?? "",
    ...(input.limit !== undefined ? { limit: input.limit as number } : {}),
    ...(token !== undefined ? { offset: token as string | null } : {}),
  };
}

/**
 * A GET operation's parameters are the query string's (string parameters only: see routes.ts);
 * one that declares none ignores the query string, as a cache-busting `?_=1` is no parameter.
 * Other methods take the body.
 */
function operationInput(match: Match, request: HttpRequest, body: unknown, declares: boolean): unknown {
  if (match.route.method !== "GET") return body;
  return declares ? { ...request.query } : undefined;
}

/** The version an If-Match pins a write to, if any. */
function writeOptions(request: HttpRequest): { expectedVersion?: number } {
  const version = expectedVersion(request.headers["if-match"]);
  return version === undefined ? {} : { expectedVersion: version };
}

/**
 * Translates a matched request into one domain call and the domain's answer into HTTP: nothing
 * here validates, strips or checks permissions (the domain does).
 */
export async function dispatch(app: Application, match: Match, request: HttpRequest, requestId: string): Promise<HttpResponse> {
  const { userId } = await resolveIdentity(app, request);
  const ctx = new Context({ requestId, ...(userId ? { userId } : {}) });
  const { route, params } = match;
  const target = route.target;
  if (target.kind === "openapi") return json(200, openApi(app));
  const body = readsBody(route) ? readJsonBody(request) : undefined;
  if (target.kind === "serviceOperation") {
    const entry = app.service(target.service);
    if (!entry) throw new NotFoundError(`No service ${target.service}`);
    const declares = entry.operations.some((o) => o.name === target.operation && o.input);
    return json(200, await app.domain.invokeService(ctx, entry, target.operation, operationInput(match, request, body, declares)));
  }
  const info = app.model(target.model);
  if (!info) throw new NotFoundError(`No model ${target.model}`);
  if (target.kind === "modelOperation") {
    const declares = info.operations.some((o) => o.name === target.operation && o.input);
    return json(
      200,
      await app.domain.invoke(ctx, info, target.operation, target.isStatic ? undefined : params, operationInput(match, request, body, declares)),
    );
  }
  switch (target.action) {
    case "create":
      return record(await app.domain.create(ctx, info, body));
    case "query":
      return json(200, await app.domain.query(ctx, info, queryArguments(body)));
    case "get":
      return readRecord(app, ctx, info, params, request);
    case "update":
      return record(await app.domain.update(ctx, info, params, body, writeOptions(request)));
    case "patch":
      return record(await app.domain.patch(ctx, info, params, body, writeOptions(request)));
    case "delete":
      await app.domain.delete(ctx, info, params, writeOptions(request));
      return empty(204);
  }
}
