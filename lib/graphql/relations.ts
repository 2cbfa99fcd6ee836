import { GraphQLList, GraphQLNonNull, GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigMap } from "graphql";
import type { ModelClass } from "../core/model.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { Item } from "../core/records.ts";
import type { BelongsTo, Contains, ManyToMany } from "../core/relations.ts";
import type { KeyValue } from "../store/repository.ts";
import type { GraphQLContext } from "./context.ts";
import type { ModelTypes } from "./model-types.ts";
import { scopedQuery } from "./scoped-query.ts";
import { LongScalar } from "./scalars.ts";
import { BadQueryError } from "../core/errors.ts";

function compareKeys(a: KeyValue, b: KeyValue): number {
  return typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

type Field = GraphQLFieldConfig<Item, GraphQLContext>;

function isKeyValue(value: unknown): value is KeyValue {
  return (typeof value === "string" && value !== "") || typeof value === "number";
}

/** A relation to a registered model with a single-field key; others stay plain fields. */
function registered(types: ModelTypes, target: () => ModelClass): ModelInfo | undefined {
  const info = types.app.model(target().name);
  return info && info.keyFields.length === 1 ? info : undefined;
}

/** The related record (batched per model), or null when missing or not readable by the caller. */
function belongsToField(relation: BelongsTo, target: ModelInfo, types: ModelTypes): Field {
  const keyField = target.keyFields[0] as string;
  return {
    type: types.object(target),
    resolve: (parent, _args, { loaders }) => {
      const value = parent[relation.field];
      return isKeyValue(value) ? loaders.record(target, { [keyField]: value }) : null;
    },
  };
}

/**
 * The children as a page: the domain's query with `<field> = <this key>` ANDed to the caller's
 * filter, so that it plans as a Query on the child's `by_<field>` index.
 */
function containsField(relation: Contains, parent: ModelInfo, child: ModelInfo, types: ModelTypes): Field {
  const parentKey = parent.keyFields[0] as string;
  return {
    type: types.results(child),
    args: { query: { type: GraphQLString }, limit: { type: LongScalar }, offset: { type: GraphQLString } },
    extensions: { listSize: types.listSize(child) },
    resolve: (record, args: { query?: string | null; limit?: number | null; offset?: string | null }, { app, ctx }) => {
      const value = record[parentKey];
      if (!isKeyValue(value)) return { results: [], continuationToken: null };
      return app.domain.query(ctx, child, {
        q: scopedQuery(relation.field, value, args.query ?? ""),
        ...(args.limit != null ? { limit: args.limit } : {}),
        ...(args.offset != null ? { offset: args.offset } : {}),
      }, { info: parent, key: value });
    },
  };
}

/**
 * The join rows of every parent in view are read together (one lookup per 50 parents), then the
 * targets in one batched read; both pass the read permission check.
 */
function manyToManyField(relation: ManyToMany, parent: ModelInfo, target: ModelInfo, through: ModelInfo, types: ModelTypes): Field {
  const parentKey = parent.keyFields[0] as string;
  const targetKey = target.keyFields[0] as string;
  const { default: fallback, max } = relation.limits;
  return {
    type: new GraphQLList(new GraphQLNonNull(types.object(target))),
    args: { limit: { type: LongScalar, description: `At most this many (default ${fallback}, at most ${max}), in key order.` } },
    extensions: { listSize: { limit: relation.limits } },
    resolve: async (record, args: { limit?: number | null }, { loaders }) => {
      const limit = args.limit ?? fallback;
      if (!Number.isInteger(limit) || limit < 1 || limit > max) {
        const message = `limit must be an integer from 1 to ${max}`;
        throw new BadQueryError(message, [{ path: "/limit", message }]);
      }
      const value = record[parentKey];
      if (!isKeyValue(value)) return [];
      const rows = await loaders.byField(through, relation.from, value);
      const keys = rows.map((row) => row[relation.to]).filter(isKeyValue).sort(compareKeys).slice(0, limit);
      const targets = await Promise.all(keys.map((key) => loaders.record(target, { [targetKey]: key })));
      return targets.filter((t): t is Item => t !== null);
    },
  };
}

/**
 * Relation fields of a model's object type (spec 2.4). A belongs-to named like its attribute
 * (Post.author) replaces the plain key with the related object.
 */
export function relationFields(info: ModelInfo, types: ModelTypes): GraphQLFieldConfigMap<Item, GraphQLContext> {
  const fields: GraphQLFieldConfigMap<Item, GraphQLContext> = {};
  const single = info.keyFields.length === 1;
  for (const [name, relation] of Object.entries(info.relations)) {
    const target = registered(types, relation.target);
    if (!target) continue;
    if (relation.kind === "belongsTo") fields[name] = belongsToField(relation, target, types);
    else if (relation.kind === "contains" && single) fields[name] = containsField(relation, info, target, types);
    else if (relation.kind === "manyToMany" && single) {
      const through = types.app.model(relation.through().name);
      if (through) fields[name] = manyToManyField(relation, info, target, through, types);
    }
  }
  return fields;
}
