import { GraphQLList, GraphQLNonNull, GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigMap } from "graphql";
import type { ModelClass } from "../core/model.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { Item } from "../core/records.ts";
import type { BelongsTo, Contains, ManyToMany } from "../core/relations.ts";
import type { KeyValue } from "../store/repository.ts";
import type { GraphQLContext } from "./context.ts";
import type { ModelTypes } from "./model-types.ts";
import { LongScalar } from "./scalars.ts";
import { BadQueryError } from "../core/errors.ts";

function compareKeys(a: KeyValue, b: KeyValue): number {
  return typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

type Field = GraphQLFieldConfig<Item, GraphQLContext>;

function isKeyValue(value: unknown): value is KeyValue {
  return (typeof value === "string" && value !== "") || typeof value === "number";
}

/** A registered model, with a one-field key where the relation looks records up by key. */
function registered(types: ModelTypes, target: () => ModelClass, singleKey: boolean): ModelInfo | undefined {
  const info = types.app.model(target().name);
  return info && (!singleKey || info.keyFields.length === 1) ? info : undefined;
}

/** The parent's key as the child attributes holding it, or undefined when the record lacks a part. */
function scopeOf(parent: ModelInfo, fields: readonly string[], record: Item): Record<string, KeyValue> | undefined {
  const scope: Record<string, KeyValue> = {};
  for (const [i, field] of fields.entries()) {
    const value = record[parent.keyFields[i] as string];
    if (!isKeyValue(value)) return undefined;
    scope[field] = value;
  }
  return scope;
}

/** A relation naming one attribute per key field of its parent, or a declaration error at start. */
function assertKeyFields(parent: ModelInfo, name: string, fields: readonly string[]): void {
  if (fields.length !== parent.keyFields.length) {
    throw new Error(
      `${parent.name}.${name}: names ${fields.length} attribute(s) for a key of ${parent.keyFields.length} field(s) (${parent.keyFields.join(", ")})`,
    );
  }
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
 * filter, so that it plans as a Query on the child's `by_<field>` index. The pages of every parent
 * in view that asks with the same arguments are read together (a PartiQL `IN` per 50 parents in
 * DynamoDB), each the page its own query would give, continuation token included.
 */
function containsField(relation: Contains, parent: ModelInfo, child: ModelInfo, types: ModelTypes): Field {
  return {
    type: types.results(child),
    args: { query: { type: GraphQLString }, limit: { type: LongScalar }, offset: { type: GraphQLString } },
    extensions: { listSize: types.listSize(child) },
    resolve: (record, args: { query?: string | null; limit?: number | null; offset?: string | null }, { loaders }) => {
      const scope = scopeOf(parent, relation.fields, record);
      if (!scope) return { results: [], continuationToken: null, scanned: 0 };
      return loaders.children(
        child,
        scope,
        {
          q: args.query ?? "",
          ...(args.limit != null ? { limit: args.limit } : {}),
          ...(args.offset != null ? { offset: args.offset } : {}),
        },
        parent,
      );
    },
  };
}

/**
 * The join rows of every parent in view are read together, as a contains relation reads children
 * (a PartiQL `IN` per 50 parents): each parent's first `limit` join rows, under the join model's
 * read budget (`limits.maxRead`) and the response's byte budget, never all of a parent's rows. Then
 * the targets in one batched read; both pass the read permission check. When the budget ends
 * first the list is short; the join model's own list (its `continuationToken`) reads on from there.
 */
function manyToManyField(relation: ManyToMany, parent: ModelInfo, target: ModelInfo, through: ModelInfo, types: ModelTypes): Field {
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
      const scope = scopeOf(parent, relation.fromFields, record);
      if (!scope) return [];
      // Scoped by every part of the parent's key; the rows' read rule on a one-field parent holds
      // as shown (the parent was read through this request), a composite one's is checked in full.
      const page = await loaders.children(through, scope, { q: "", limit }, parent);
      const keys: KeyValue[] = [];
      for (const row of page.results) {
        const key = row[relation.to];
        if (isKeyValue(key)) keys.push(key);
      }
      keys.sort(compareKeys);
      const targets = await Promise.all(keys.map((key) => loaders.record(target, { [targetKey]: key })));
      return targets.filter((t): t is Item => t !== null);
    },
  };
}

/**
 * Relation fields of a model's object type. A belongs-to named like its attribute
 * (Post.author) replaces the plain key with the related object.
 */
export function relationFields(info: ModelInfo, types: ModelTypes): GraphQLFieldConfigMap<Item, GraphQLContext> {
  const fields: GraphQLFieldConfigMap<Item, GraphQLContext> = {};
  for (const [name, relation] of Object.entries(info.relations)) {
    // A contains relation lists its children by query, whatever their key; the others look targets up by key.
    const target = registered(types, relation.target, relation.kind !== "contains");
    if (!target) continue;
    if (relation.kind === "belongsTo") fields[name] = belongsToField(relation, target, types);
    else if (relation.kind === "contains") {
      assertKeyFields(info, name, relation.fields);
      fields[name] = containsField(relation, info, target, types);
    } else {
      assertKeyFields(info, name, relation.fromFields);
      const through = types.app.model(relation.through().name);
      if (through) fields[name] = manyToManyField(relation, info, target, through, types);
    }
  }
  return fields;
}
