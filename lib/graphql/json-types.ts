import {
  GraphQLBoolean,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from "graphql";
import type { JsonSchema } from "../core/schema.ts";
import { isGraphQLName, pascal } from "./names.ts";
import { AnyScalar, DateScalar, LongScalar } from "./scalars.ts";

/** What a JSON Schema becomes in GraphQL, before input/output types are chosen. */
export type Shape =
  | { kind: "scalar"; type: GraphQLScalarType }
  | { kind: "list"; items: JsonSchema }
  | { kind: "object"; properties: Record<string, JsonSchema>; required: readonly string[] };

const scalar = (type: GraphQLScalarType): Shape => ({ kind: "scalar", type });

function literalType(values: unknown[]): GraphQLScalarType {
  if (values.length > 0 && values.every((v) => typeof v === "string")) return GraphQLString;
  if (values.length > 0 && values.every((v) => typeof v === "number")) return LongScalar;
  if (values.length > 0 && values.every((v) => typeof v === "boolean")) return GraphQLBoolean;
  return AnyScalar;
}

function withoutNull(branches: JsonSchema[]): JsonSchema[] {
  return branches.filter((b) => b.type !== "null" && b.const !== null);
}

/**
 * Enumerations (an `enum`, a `const`, or a union of `const` literals) collapse to their scalar;
 * a nullable union counts as its non-null branch; anything GraphQL cannot say is Any.
 */
export function shapeOf(schema: JsonSchema): Shape {
  if (schema.const !== undefined) return scalar(literalType([schema.const]));
  if (Array.isArray(schema.enum)) return scalar(literalType(schema.enum.filter((v) => v !== null)));
  const union = schema.anyOf ?? (schema.oneOf as JsonSchema[] | undefined);
  if (union) {
    const branches = withoutNull(union);
    if (branches.length === 1) return shapeOf(branches[0] as JsonSchema);
    if (branches.every((b) => b.const !== undefined)) return scalar(literalType(branches.map((b) => b.const)));
    return scalar(AnyScalar);
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  if (types.length !== 1) return scalar(AnyScalar);
  switch (types[0]) {
    case "string":
      return scalar(schema.format === "date-time" ? DateScalar : GraphQLString);
    case "number":
    case "integer":
      return scalar(LongScalar);
    case "boolean":
      return scalar(GraphQLBoolean);
    case "array":
      return { kind: "list", items: schema.items ?? {} };
    case "object":
      return schema.properties && Object.keys(schema.properties).length > 0
        ? { kind: "object", properties: schema.properties, required: Array.isArray(schema.required) ? (schema.required as string[]) : [] }
        : scalar(AnyScalar);
    default:
      return scalar(AnyScalar);
  }
}

function checkName(field: string, owner: string): void {
  if (!isGraphQLName(field)) throw new Error(`GraphQL: field '${field}' of ${owner} is not a valid GraphQL name`);
}

/**
 * Turns JSON Schemas into GraphQL types, naming anonymous object types after where they appear
 * (`Post.meta` is `PostMeta`, its input twin `PostMetaInput`). One converter per schema build, so
 * each name is created once.
 */
export class TypeConverter {
  private readonly outputs = new Map<string, GraphQLObjectType>();
  private readonly inputs = new Map<string, GraphQLInputObjectType>();

  output(schema: JsonSchema, name: string): GraphQLOutputType {
    const shape = shapeOf(schema);
    if (shape.kind === "scalar") return shape.type;
    if (shape.kind === "list") return new GraphQLList(this.output(shape.items, name));
    const known = this.outputs.get(name);
    if (known) return known;
    const type = new GraphQLObjectType({
      name,
      fields: () => this.outputFields(shape.properties, name, shape.required),
    });
    this.outputs.set(name, type);
    return type;
  }

  input(schema: JsonSchema, name: string): GraphQLInputType {
    const shape = shapeOf(schema);
    if (shape.kind === "scalar") return shape.type;
    if (shape.kind === "list") return new GraphQLList(this.input(shape.items, name));
    const typeName = `${name}Input`;
    const known = this.inputs.get(typeName);
    if (known) return known;
    const type = new GraphQLInputObjectType({ name: typeName, fields: () => this.inputFields(shape.properties, name) });
    this.inputs.set(typeName, type);
    return type;
  }

  /**
   * Non-null where the schema requires the field (what OpenAPI says is always in a response: a
   * model's `outputSchema.required` leaves out the fields `fieldReaders` hide from some callers),
   * nullable elsewhere. Nested objects follow their own `required`.
   */
  outputFields(properties: Record<string, JsonSchema>, owner: string, required: readonly string[] = []): GraphQLFieldConfigMap<unknown, unknown> {
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const [field, schema] of Object.entries(properties)) {
      if (field.startsWith("__")) continue;
      checkName(field, owner);
      const type = this.output(schema, `${owner}${pascal(field)}`);
      fields[field] = { type: required.includes(field) ? new GraphQLNonNull(type) : type, ...(schema.description ? { description: schema.description } : {}) };
    }
    return fields;
  }

  /**
   * Non-null only for the fields named in `required` (a model's create input); every other field,
   * nested ones included, is nullable: formats, nested requirements and the rest are checked by the
   * domain's validation, which reports all problems at once with JSON pointers, exactly as REST does.
   */
  inputFields(properties: Record<string, JsonSchema>, owner: string, required: readonly string[] = []): GraphQLInputFieldConfigMap {
    const fields: GraphQLInputFieldConfigMap = {};
    for (const [field, schema] of Object.entries(properties)) {
      if (field.startsWith("__")) continue;
      checkName(field, owner);
      const type = this.input(schema, `${owner}${pascal(field)}`);
      fields[field] = { type: required.includes(field) ? new GraphQLNonNull(type) : type, ...(schema.description ? { description: schema.description } : {}) };
    }
    return fields;
  }
}
