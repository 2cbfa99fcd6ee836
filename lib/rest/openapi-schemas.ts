import type { Application } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { OperationDefinition } from "../core/operation.ts";
import type { JsonSchema } from "../core/schema.ts";
import { exampleOf } from "./openapi-examples.ts";

type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** TypeBox marks its schemas with symbols and optional helpers; OpenAPI wants plain JSON Schema. */
export function plain(schema: JsonSchema | undefined): Json {
  return schema === undefined ? {} : (JSON.parse(JSON.stringify(schema)) as Json);
}

/** Component names per model, so the paths and the schemas agree on them. */
export const names = (model: string) => ({
  record: model,
  create: `${model}Input`,
  replace: `${model}Replace`,
  patch: `${model}Patch`,
  query: `${model}Query`,
  results: `${model}Results`,
});

const ERROR: Json = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "integer", description: "The HTTP status" },
    message: { type: "string" },
    requestId: { type: "string", description: "On 500 only: the id the logged cause is filed under" },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string", description: "JSON pointer into the input, e.g. /email" }, message: { type: "string" } },
      },
    },
  },
  examples: [{ code: 400, message: "Validation failed", errors: [{ path: "/email", message: 'must match format "email"' }] }],
};

/** The schema with its example attached (JSON Schema 2020-12 `examples`, which OpenAPI 3.1 keeps). */
function withExample(schema: JsonSchema): Json {
  return { ...plain(schema), examples: [exampleOf(schema)] };
}

/**
 * PATCH: any client field, none required; `null` removes an optional field and is refused for a
 * required one (the domain says "is required and cannot be removed"), so only optional fields
 * accept null.
 */
function patchSchema(info: ModelInfo): JsonSchema {
  const required = new Set(info.inputSchema.required ?? []);
  const properties = Object.fromEntries(
    Object.entries(info.patchSchema.properties).map(([k, v]) => [k, required.has(k) ? v : { anyOf: [v, { type: "null" }] }]),
  );
  return { ...info.patchSchema, properties };
}

/** PUT: the complete record, but its key fields may be left out (the path names the record). */
function replaceSchema(info: ModelInfo): JsonSchema {
  return { ...info.inputSchema, required: (info.inputSchema.required ?? []).filter((f) => !info.keyFields.includes(f)) };
}

/** The query route's body; `limit` is bounded by the model's own limits. */
function querySchema(info: ModelInfo): JsonSchema {
  const token = { type: ["string", "null"], description: "The `continuationToken` of the previous page; null or absent for the first" };
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      q: { type: "string", description: "A query-language filter (`status = 'published' ORDER BY createdAt DESC`); empty for every record" },
      limit: { type: "integer", minimum: 1, maximum: info.limits.max, default: info.limits.default },
      continuationToken: token,
      offset: { ...token, deprecated: true, description: "GraphQL's name for `continuationToken`, accepted as an alias" },
    },
    examples: [{ q: "", limit: Math.min(20, info.limits.max) }],
  };
}

function resultsSchema(info: ModelInfo): Json {
  return {
    type: "object",
    required: ["results", "continuationToken", "scanned"],
    properties: {
      results: { type: "array", items: ref(info.name) },
      continuationToken: { type: ["string", "null"], description: "Null exactly when there are no more records" },
      scanned: {
        type: "integer",
        minimum: 0,
        description:
          "Stored records this page examined before the filter and read permission. A sparse filter answers short pages, even empty ones, with a token: follow `continuationToken` until it is null, and show `scanned` as progress",
      },
    },
  };
}

export function modelSchemas(info: ModelInfo): Json {
  const n = names(info.name);
  return {
    [n.record]: withExample(info.outputSchema),
    [n.create]: withExample(info.inputSchema),
    [n.replace]: withExample(replaceSchema(info)),
    [n.patch]: withExample(patchSchema(info)),
    [n.query]: querySchema(info),
    [n.results]: resultsSchema(info),
  };
}

/** An operation's parameters as the domain validates them: declared names only. */
export function operationInput(operation: OperationDefinition | undefined): JsonSchema {
  const input = operation?.input ? plain(operation.input) : { type: "object", properties: {} };
  return { ...input, additionalProperties: false };
}

export function componentSchemas(app: Application): Json {
  const schemas: Json = { Error: ERROR };
  for (const info of app.models()) Object.assign(schemas, modelSchemas(info));
  return schemas;
}
