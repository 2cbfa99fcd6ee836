import { authOpenApiPaths } from "../auth/routes/serverless.ts";
import type { Application } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { OperationDefinition } from "../core/operation.ts";
import type { JsonSchema } from "../core/schema.ts";
import type { Route } from "./routes.ts";

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const content = (schema: Json): Json => ({ "application/json": { schema } });

/** TypeBox marks its schemas with symbols and optional helpers; OpenAPI wants plain JSON Schema. */
function plain(schema: JsonSchema | undefined): Json {
  return schema === undefined ? {} : (JSON.parse(JSON.stringify(schema)) as Json);
}

const ERRORS: Record<string, string> = {
  "400": "Invalid input (validation errors list JSON pointers) or a bad query",
  "401": "Authentication required",
  "403": "Permission denied",
  "404": "Not found",
  "409": "Conflict: the key already exists",
  "412": "The If-Match version is not the stored one",
  "413": "Body over 1 MiB",
  "415": "Body is not application/json",
  "429": "Throttled: see Retry-After",
  "500": "Internal error (the body carries a requestId)",
};

function errorResponses(codes: string[]): Json {
  return Object.fromEntries(codes.map((c) => [c, { description: ERRORS[c], content: content(ref("Error")) }]));
}

function operationParameters(operation: OperationDefinition): Json {
  return operation.input ? plain({ ...operation.input, additionalProperties: false }) : { type: "object", additionalProperties: false };
}

function describeRoute(app: Application, route: Route & { target: Exclude<Route["target"], { kind: "openapi" }> }): Json {
  const t = route.target;
  const keyParams = (info: ModelInfo | undefined) =>
    route.params.map((name) => ({ name, in: "path", required: true, schema: plain(info?.outputSchema.properties[name] ?? { type: "string" }) }));
  if (t.kind === "serviceOperation") {
    const operation = app.service(t.service)?.operations.find((o) => o.name === t.operation);
    return {
      operationId: `${t.service}.${t.operation}`,
      tags: [t.service],
      ...(route.method === "GET" ? {} : { requestBody: { required: false, content: content(operation ? operationParameters(operation) : {}) } }),
      responses: { "200": { description: "The operation's result", content: content(plain(operation?.output)) }, ...errorResponses(["400", "401", "403", "500"]) },
    };
  }
  const info = app.model(t.model);
  const name = t.model;
  if (t.kind === "modelOperation") {
    const operation = info?.operations.find((o) => o.name === t.operation);
    return {
      operationId: `${name}.${t.operation}`,
      tags: [name],
      parameters: keyParams(info),
      ...(route.method === "GET" ? {} : { requestBody: { required: false, content: content(operation ? operationParameters(operation) : {}) } }),
      responses: { "200": { description: "The operation's result", content: content(plain(operation?.output)) }, ...errorResponses(["400", "401", "403", "404", "500"]) },
    };
  }
  const withEtag = { ETag: { description: "The record version, for If-Match", schema: { type: "string" } } };
  const ifMatch = { name: "If-Match", in: "header", required: false, schema: { type: "string" }, description: "Write only if the record is still at this ETag" };
  const one = (description: string) => ({ "200": { description, headers: withEtag, content: content(ref(name)) } });
  switch (t.action) {
    case "create":
      return { operationId: `${name}.create`, tags: [name], requestBody: { required: true, content: content(ref(`${name}Input`)) }, responses: { ...one("The created record"), ...errorResponses(["400", "401", "403", "409", "413", "415", "500"]) } };
    case "query":
      return {
        operationId: `${name}.query`,
        tags: [name],
        requestBody: { required: false, content: content(ref("QueryRequest")) },
        responses: { "200": { description: "One page of matching records", content: content(ref(`${name}Results`)) }, ...errorResponses(["400", "500"]) },
      };
    case "get":
      return { operationId: `${name}.get`, tags: [name], parameters: keyParams(info), responses: { ...one("The record"), "304": { description: "Not modified (If-None-Match)" }, ...errorResponses(["404", "500"]) } };
    case "update":
      return { operationId: `${name}.update`, tags: [name], parameters: [...keyParams(info), ifMatch], requestBody: { required: true, content: content(ref(`${name}Input`)) }, responses: { ...one("The replaced record"), ...errorResponses(["400", "401", "403", "404", "412", "500"]) } };
    case "patch":
      return { operationId: `${name}.patch`, tags: [name], parameters: [...keyParams(info), ifMatch], requestBody: { required: true, content: content(ref(`${name}Patch`)) }, responses: { ...one("The patched record"), ...errorResponses(["400", "401", "403", "404", "412", "500"]) } };
    case "delete":
      return { operationId: `${name}.delete`, tags: [name], parameters: [...keyParams(info), ifMatch], responses: { "204": { description: "Deleted" }, ...errorResponses(["401", "403", "404", "412", "500"]) } };
  }
}

/** OpenAPI 3.1 from the same route table and JSON Schemas the handlers use. */
export function openApiDocument(app: Application, routes: Route[]): Json {
  const schemas: Json = {
    Error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "integer" },
        message: { type: "string" },
        reason: { type: "string", description: "Auth routes: the stable name of the refusal (ACCOUNT_EXISTS, ...)" },
        requestId: { type: "string" },
        errors: { type: "array", items: { type: "object", required: ["path", "message"], properties: { path: { type: "string", description: "JSON pointer" }, message: { type: "string" } } } },
      },
    },
    QueryRequest: {
      type: "object",
      additionalProperties: false,
      properties: {
        q: { type: "string", description: "A query-language filter; empty for every record" },
        limit: { type: "integer", minimum: 1 },
        continuationToken: { type: ["string", "null"] },
      },
    },
  };
  for (const info of app.models()) {
    schemas[info.name] = plain(info.outputSchema);
    schemas[`${info.name}Input`] = plain(info.inputSchema);
    schemas[`${info.name}Patch`] = plain({ ...info.patchSchema, properties: Object.fromEntries(Object.entries(info.patchSchema.properties).map(([k, v]) => [k, { anyOf: [v, { type: "null" }] }])) });
    schemas[`${info.name}Results`] = { type: "object", required: ["results", "continuationToken"], properties: { results: { type: "array", items: ref(info.name) }, continuationToken: { type: ["string", "null"] } } };
  }
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.target.kind === "openapi") continue;
    paths[route.path] ??= {};
    (paths[route.path] as Json)[route.method.toLowerCase()] = describeRoute(app, route as Parameters<typeof describeRoute>[1]);
  }
  Object.assign(paths, authOpenApiPaths(app));
  return {
    openapi: "3.1.0",
    info: { title: app.name, version: app.version },
    paths,
    components: { schemas },
  };
}
