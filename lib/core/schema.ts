import {
  Any,
  Array as ArrayOf,
  Boolean as BooleanType,
  Integer,
  Literal,
  Null,
  Number as NumberType,
  Object as ObjectOf,
  Optional,
  String as StringType,
  Union,
  Unknown,
} from "@sinclair/typebox";

/**
 * Models declare their fields with TypeBox: the builder's output *is* JSON Schema (the single
 * source for validation, GraphQL and OpenAPI) and gives static types for free.
 *
 * Only the builders of the JSON Schema subset the framework reads, imported one by one: TypeBox's
 * own `Type` namespace references every builder (and its type algebra), ~48 KB more in every
 * function bundle, parsed at each cold start. An application that needs another builder imports
 * it from "@sinclair/typebox" itself.
 */
export const Type = {
  Any,
  Array: ArrayOf,
  Boolean: BooleanType,
  Integer,
  Literal,
  Null,
  Number: NumberType,
  Object: ObjectOf,
  Optional,
  String: StringType,
  Union,
  Unknown,
} as const;
export type { Static, TObject, TSchema, TProperties } from "@sinclair/typebox";

/** The JSON Schema subset the framework reads when it derives validators, GraphQL types and OpenAPI. */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  [keyword: string]: unknown;
}

export interface ObjectSchema extends JsonSchema {
  type: "object";
  properties: Record<string, JsonSchema>;
}

/** Server-managed timestamps every stored model carries; never accepted from a client. */
export const TIMESTAMP_FIELDS = ["createdAt", "updatedAt"] as const;

/** The record version that backs ETags and conditional writes. */
export const VERSION_FIELD = "__version";
