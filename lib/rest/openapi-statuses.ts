import type { Application } from "../core/application.ts";
import type { Action } from "../core/model.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { DOMAIN_ERROR_STATUSES, type OperationDefinition } from "../core/operation.ts";
import { readsBody, type Route } from "./routes.ts";
import { probeModel, probeService, type PolicyProbe } from "./openapi-security.ts";

type Json = Record<string, unknown>;

const errorBody = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

/** One reusable response per error status, named as generators name them. */
export const ERROR_RESPONSES: Record<number, { name: string; response: Json }> = {
  400: {
    name: "BadRequest",
    response: {
      description:
        "Invalid input: `errors` lists each problem with a JSON pointer (`/email`, or a path parameter not validly percent-encoded); or a bad query or token",
    },
  },
  401: { name: "Unauthenticated", response: { description: "Sign in first: the policy refuses an anonymous caller" } },
  403: { name: "Forbidden", response: { description: "The policy refuses this signed-in caller" } },
  404: { name: "NotFound", response: { description: "No such record, or one the caller may not read (the two look the same)" } },
  409: { name: "Conflict", response: { description: "A record with this key already exists" } },
  412: { name: "PreconditionFailed", response: { description: "`If-Match` does not name the stored version" } },
  413: { name: "PayloadTooLarge", response: { description: "The body exceeds 1 MiB" } },
  415: { name: "UnsupportedMediaType", response: { description: "The body is not `application/json`" } },
  429: {
    name: "Throttled",
    response: {
      description: "DynamoDB stayed throttled: retry after `Retry-After` seconds",
      headers: { "Retry-After": { required: true, description: "Seconds to wait before retrying", schema: { type: "string", pattern: "^[0-9]+$" } } },
    },
  },
  503: {
    name: "Unavailable",
    response: {
      description: "DynamoDB did not answer in time, or the request ran out of Lambda time: retry after `Retry-After` seconds",
      headers: { "Retry-After": { required: true, description: "Seconds to wait before retrying", schema: { type: "string", pattern: "^[0-9]+$" } } },
    },
  },
  500: { name: "InternalError", response: { description: "Internal error: the body carries a `requestId` to find the logged cause" } },
};

/** Components for `components.responses`: each error status with the one error body. */
export function errorResponseComponents(): Json {
  return Object.fromEntries(Object.values(ERROR_RESPONSES).map(({ name, response }) => [name, { ...response, content: errorBody }]));
}

/** `"404": {$ref: NotFound}` for each status. */
export function errorResponses(statuses: Iterable<number>): Json {
  return Object.fromEntries([...statuses].sort((a, b) => a - b).map((s) => [String(s), { $ref: `#/components/responses/${ERROR_RESPONSES[s]?.name}` }]));
}

/** Error statuses of a route and the policy probe behind its security requirement. */
export interface RouteContract {
  statuses: Set<number>;
  probe: PolicyProbe;
}

/** What a route that reads or writes DynamoDB may answer whatever it does: throttled (429), timed out (503). */
export const STORE_STATUSES: readonly number[] = [429, 503];

const OPEN: PolicyProbe = { anonymousMayPass: true, anonymousMayFail: false, userMayFail: false };

function policy(statuses: Set<number>, probe: PolicyProbe): void {
  if (probe.anonymousMayFail) statuses.add(401);
  if (probe.userMayFail) statuses.add(403);
}

function numericKey(info: ModelInfo): boolean {
  return info.keyFields.some((f) => ["number", "integer"].includes(String(info.outputSchema.properties[f]?.type)));
}

function declared(operation: OperationDefinition | undefined): readonly number[] {
  return operation?.errors ?? DOMAIN_ERROR_STATUSES;
}

/**
 * Every error status a route can answer, derived from what its dispatch does (the same route
 * table, schemas and policies): a path parameter is decoded (400 when it is not valid
 * percent-encoding, lib/http/router.ts), a body is read (413, 415, 400), a record is loaded (404, and a
 * refused read is a 404 too), a write is conditional (412), the policy may refuse (401 anonymous,
 * 403 signed in), DynamoDB may stay throttled (429) or time out (503), an operation declares what its body raises.
 * 500 is always possible.
 */
export function routeContract(app: Application, route: Route): RouteContract {
  const statuses = new Set<number>([500]);
  const t = route.target;
  if (route.params.length > 0) statuses.add(400);
  if (readsBody(route)) [400, 413, 415].forEach((s) => statuses.add(s));
  if (t.kind === "openapi") return { statuses, probe: OPEN };
  if (t.kind === "serviceOperation") {
    const entry = app.service(t.service);
    const operation = entry?.operations.find((o) => o.name === t.operation);
    const probe = entry ? probeService(entry.service, t.operation) : OPEN;
    policy(statuses, probe);
    if (operation?.input) statuses.add(400);
    declared(operation).forEach((s) => statuses.add(s));
    return { statuses, probe };
  }
  const info = app.model(t.model) as ModelInfo;
  // Every record route reads or writes DynamoDB; a static operation only if its body does.
  if (!(t.kind === "modelOperation" && t.isStatic)) STORE_STATUSES.forEach((s) => statuses.add(s));
  if (t.kind === "modelOperation") {
    const operation = info.operations.find((o) => o.name === t.operation);
    const probe = probeModel(info, { operation: t.operation });
    policy(statuses, probe);
    if (operation?.input) statuses.add(400);
    if (!t.isStatic) statuses.add(404);
    if (!t.isStatic && numericKey(info)) statuses.add(400);
    declared(operation).forEach((s) => statuses.add(s));
    return { statuses, probe };
  }
  const action: Action = t.action === "get" || t.action === "query" ? "read" : t.action === "patch" ? "update" : t.action;
  const probe = probeModel(info, action);
  if (t.action !== "create" && t.action !== "query" && numericKey(info)) statuses.add(400);
  // A key the server generates at random never collides; the identity's own id (or a client key) may.
  if (t.action === "create" && (!info.generatedKey || info.cls.identity)) statuses.add(409);
  if (t.action === "query") statuses.add(400);
  if (t.action === "get" || t.action === "update" || t.action === "patch" || t.action === "delete") statuses.add(404);
  if (t.action === "update" || t.action === "patch" || t.action === "delete") statuses.add(412);
  // A refused read is a 404 (existence does not leak), a refused query leaves records out.
  if (action !== "read") policy(statuses, probe);
  return { statuses, probe };
}
