import { authOpenApiComponents, authOpenApiPaths } from "../auth/index.ts";
import type { Application } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { OperationDefinition } from "../core/operation.ts";
import { exampleOf } from "./openapi-examples.ts";
import { componentSchemas, names, operationInput, plain, ref } from "./openapi-schemas.ts";
import { SECURITY_SCHEMES, securityOf } from "./openapi-security.ts";
import { errorResponseComponents, errorResponses, routeContract } from "./openapi-statuses.ts";
import type { Route } from "./routes.ts";
import type { JsonSchema } from "../core/schema.ts";

type Json = Record<string, unknown>;

const json = (schema: Json, example?: unknown): Json => ({ "application/json": { schema, ...(example !== undefined ? { example } : {}) } });
const body = (schema: Json, required: boolean, example?: unknown): Json => ({ requestBody: { required, content: json(schema, example) } });

const ETAG = { ETag: { required: true, description: "The record version: send it back in If-Match", schema: { type: "string" } } };
const IF_MATCH = {
  name: "If-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "Write only if the record is still at this ETag (412 otherwise)",
};
const IF_NONE_MATCH = {
  name: "If-None-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "304 when the record is still at this ETag",
};

function keyParameters(route: Route, info: ModelInfo): Json[] {
  return route.params.map((name) => ({ name, in: "path", required: true, schema: plain(info.outputSchema.properties[name] ?? { type: "string" }) }));
}

/** A GET operation's parameters are query-string text (routes.ts allows string parameters only). */
function queryParameters(operation: OperationDefinition | undefined): Json[] {
  const input = operation?.input;
  if (!input) return [];
  const required = new Set(input.required ?? []);
  return Object.entries(input.properties).map(([name, schema]) => ({ name, in: "query", required: required.has(name), schema: plain(schema as JsonSchema) }));
}

/** Request and success response of an operation route: parameters from the query string or the body. */
function describeOperation(route: Route, operation: OperationDefinition | undefined, keys: Json[]): Json {
  const input = operationInput(operation);
  const takesBody = route.method !== "GET";
  return {
    parameters: [...keys, ...(takesBody ? [] : queryParameters(operation))],
    ...(takesBody ? body(input as Json, (input.required ?? []).length > 0, exampleOf(input)) : {}),
    responses: {
      "200": { description: "The operation's result", content: json(plain(operation?.output), operation?.output ? exampleOf(operation.output) : undefined) },
    },
  };
}

function describeCrud(route: Route & { target: { kind: "crud" } }, info: ModelInfo): Json {
  const n = names(info.name);
  const keys = keyParameters(route, info);
  const record = (description: string): Json => ({ "200": { description, headers: ETAG, content: json(ref(n.record)) } });
  switch (route.target.action) {
    case "create":
      return { ...body(ref(n.create), true), responses: record("The created record") };
    case "query":
      return {
        ...body(ref(n.query), false),
        responses: { "200": { description: "One page of matching records the caller may read", content: json(ref(n.results)) } },
      };
    case "get":
      return {
        parameters: [...keys, IF_NONE_MATCH],
        responses: { ...record("The record as this caller may see it"), "304": { description: "Not modified", headers: ETAG } },
      };
    case "update":
      return { parameters: [...keys, IF_MATCH], ...body(ref(n.replace), true), responses: record("The replaced record") };
    case "patch":
      return { parameters: [...keys, IF_MATCH], ...body(ref(n.patch), true), responses: record("The patched record") };
    case "delete":
      return { parameters: [...keys, IF_MATCH], responses: { "204": { description: "Deleted" } } };
  }
}

function operationId(route: Route): string {
  const t = route.target;
  if (t.kind === "crud") return `${t.model}.${t.action}`;
  if (t.kind === "modelOperation") return `${t.model}.${t.operation}`;
  if (t.kind === "serviceOperation") return `${t.service}.${t.operation}`;
  return "openapi";
}

function describeRoute(app: Application, route: Route): Json {
  const t = route.target;
  let described: Json;
  let tag: string;
  if (t.kind === "serviceOperation") {
    tag = t.service;
    described = describeOperation(
      route,
      app.service(t.service)?.operations.find((o) => o.name === t.operation),
      [],
    );
  } else if (t.kind === "modelOperation") {
    const info = app.model(t.model) as ModelInfo;
    tag = t.model;
    described = describeOperation(
      route,
      info.operations.find((o) => o.name === t.operation),
      keyParameters(route, info),
    );
  } else if (t.kind === "crud") {
    tag = t.model;
    described = describeCrud(route as Route & { target: typeof t }, app.model(t.model) as ModelInfo);
  } else {
    throw new Error("the OpenAPI document does not describe itself");
  }
  const { statuses, probe } = routeContract(app, route);
  const { responses, parameters, ...rest } = described as { responses: Json; parameters?: Json[] };
  return {
    operationId: operationId(route),
    tags: [tag],
    security: securityOf(probe),
    ...(parameters && parameters.length > 0 ? { parameters } : {}),
    ...rest,
    responses: { ...responses, ...errorResponses(statuses) },
  };
}

/**
 * OpenAPI 3.1 from the same route table, JSON Schemas, policies and limits the handlers use:
 * nothing here is listed by hand, so the document moves with the models (a conformance test
 * checks every live answer against it).
 */
export function openApiDocument(app: Application, routes: Route[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.target.kind === "openapi") continue;
    paths[route.path] ??= {};
    (paths[route.path] as Json)[route.method.toLowerCase()] = describeRoute(app, route);
  }
  Object.assign(paths, authOpenApiPaths(app));
  return {
    openapi: "3.1.0",
    info: {
      title: app.name,
      version: app.version,
      description:
        "Derived from the application's models, services and authentication routes. Any other method on a listed path (an authentication route's included) answers 405 with an `Allow` header naming the listed ones; any other path 404; both with the `Error` body.",
    },
    paths,
    components: {
      schemas: { ...componentSchemas(app), ...authOpenApiComponents(app) },
      responses: errorResponseComponents(),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
