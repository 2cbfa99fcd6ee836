import {
  GraphQLBoolean,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
} from "graphql";
import type { Application } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { FilterLimits } from "../query/index.ts";
import type { GraphQLContext } from "./context.ts";
import type { TypeConverter } from "./json-types.ts";
import { camel } from "./names.ts";
import { relationFields } from "./relations.ts";
import { AnyScalar, LongScalar } from "./scalars.ts";

/** Fields the limit checker reads to estimate how many items a list field may hold. */
export interface ListSize {
  /** The list's size comes from this field's `limit` argument, else the model's limits. */
  limit?: { default: number; max: number };
  /** The model's filter width limits, which the LIMIT of a `query` string is parsed with. */
  filter?: Partial<FilterLimits>;
  /** The list is a page whose size its parent field already counted (`results`). */
  counted?: true;
}

/**
 * The generated types of each model: `<Model>`, `<Model>Input`, `<Model>Results`,
 * `<Model>Event`, created once each, with fields as thunks so that relations may point anywhere.
 */
export class ModelTypes {
  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly inputs = new Map<string, GraphQLInputObjectType | null>();
  private readonly pages = new Map<string, GraphQLObjectType>();
  private readonly events = new Map<string, GraphQLObjectType>();
  readonly deleteResult = new GraphQLObjectType({
    name: "DeleteResult",
    fields: { success: { type: new GraphQLNonNull(GraphQLBoolean) } },
  });

  constructor(
    readonly app: Application,
    readonly converter: TypeConverter,
  ) {}

  object(info: ModelInfo): GraphQLObjectType {
    let type = this.objects.get(info.name);
    if (!type) {
      type = new GraphQLObjectType<unknown, GraphQLContext>({
        name: info.name,
        fields: () => this.objectFields(info),
      });
      this.objects.set(info.name, type);
    }
    return type;
  }

  /**
   * Output schema fields (server fields included), non-null where the output schema requires them
   * (as the OpenAPI document does: a field `fieldReaders` hides from some callers stays nullable),
   * key fields non-null, relations as objects (nullable: the related record may be hidden).
   */
  private objectFields(info: ModelInfo): GraphQLFieldConfigMap<unknown, GraphQLContext> {
    const fields = this.converter.outputFields(info.outputSchema.properties, info.name, info.outputSchema.required ?? []) as GraphQLFieldConfigMap<
      unknown,
      GraphQLContext
    >;
    for (const key of info.keyFields) {
      const field = fields[key];
      if (field && !(field.type instanceof GraphQLNonNull)) field.type = new GraphQLNonNull(field.type);
    }
    return { ...fields, ...(relationFields(info, this) as GraphQLFieldConfigMap<unknown, GraphQLContext>) };
  }

  /**
   * The client fields only: no server fields, relations, `__` fields or behaviors (a client may not
   * write them). The input of create and update (a full replace), so its required fields are
   * non-null, as in OpenAPI's `<Model>Input` (a client-written key is repeated in an update's input;
   * the domain refuses one that differs from the arguments').
   */
  input(info: ModelInfo): GraphQLInputObjectType | null {
    if (!this.inputs.has(info.name)) {
      const properties = info.inputSchema.properties;
      const required = info.inputSchema.required ?? [];
      const type =
        Object.keys(properties).length === 0
          ? null
          : new GraphQLInputObjectType({
              name: `${info.name}Input`,
              fields: () => this.converter.inputFields(properties, info.name, required),
            });
      this.inputs.set(info.name, type);
    }
    return this.inputs.get(info.name) ?? null;
  }

  results(info: ModelInfo): GraphQLObjectType {
    let type = this.pages.get(info.name);
    if (!type) {
      const counted: ListSize = { counted: true };
      type = new GraphQLObjectType({
        name: `${info.name}Results`,
        fields: () => ({
          results: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.object(info)))), extensions: { listSize: counted } },
          continuationToken: { type: GraphQLString, description: "Pass as `offset` for the next page; null on the last page." },
          scanned: {
            type: new GraphQLNonNull(LongScalar),
            description:
              "Stored records this page examined before the filter and read permission. A sparse filter answers short pages, even empty ones, with a token: follow `continuationToken` until it is null.",
          },
        }),
      });
      this.pages.set(info.name, type);
    }
    return type;
  }

  event(info: ModelInfo): GraphQLObjectType {
    let type = this.events.get(info.name);
    if (!type) {
      type = new GraphQLObjectType({
        name: `${info.name}Event`,
        fields: () => ({
          type: { type: new GraphQLNonNull(GraphQLString), description: "Created, Updated, Patched or Deleted." },
          key: { type: AnyScalar },
          [camel(info.name)]: { type: this.object(info) },
        }),
      });
      this.events.set(info.name, type);
    }
    return type;
  }

  /** One non-null argument per key field, named after it (String, or Long for a numeric key). */
  keyArgs(info: ModelInfo): GraphQLFieldConfigArgumentMap {
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const field of info.keyFields) args[field] = { type: new GraphQLNonNull(this.keyType(info, field)) };
    return args;
  }

  keyType(info: ModelInfo, field: string): GraphQLInputType {
    const type = info.outputSchema.properties[field]?.type;
    return type === "number" || type === "integer" ? LongScalar : GraphQLString;
  }

  listSize(info: ModelInfo): ListSize {
    return { limit: { default: info.limits.default, max: info.limits.max }, ...(info.limits.filter ? { filter: info.limits.filter } : {}) };
  }
}
