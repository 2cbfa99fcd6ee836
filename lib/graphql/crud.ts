import { GraphQLNonNull, GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigMap } from "graphql";
import { NotFoundError } from "../core/errors.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { Item } from "../core/records.ts";
import type { GraphQLContext } from "./context.ts";
import type { ModelTypes } from "./model-types.ts";
import { pluralName } from "./names.ts";
import { LongScalar } from "./scalars.ts";

// Root fields are nullable, so that one failing field leaves the others' data in the response.
type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;
type Args = Record<string, unknown>;

/** The model object, or null: a record missing or hidden from the caller is null (the two look alike). */
async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

function pick(args: Args, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, args[f]]));
}

/**
 * `updateM(uuid, M)` and `deleteM(uuid)`: a single-field key travels as `uuid` whatever the field
 * is called; a composite key takes every key field by name.
 */
function writeKeyArgs(info: ModelInfo, types: ModelTypes) {
  if (info.keyFields.length > 1) return { args: types.keyArgs(info), key: (args: Args) => pick(args, info.keyFields) };
  const field = info.keyFields[0] as string;
  return { args: { uuid: { type: new GraphQLNonNull(types.keyType(info, field)) } }, key: (args: Args) => ({ [field]: args.uuid }) };
}

export function modelQueries(info: ModelInfo, types: ModelTypes): Fields {
  return {
    [info.name]: {
      type: types.object(info),
      args: types.keyArgs(info),
      resolve: (_source, args: Args, { app, ctx }) => orNull(async () => (await app.domain.get(ctx, info, pick(args, info.keyFields))).data),
    },
    [pluralName(info)]: {
      type: types.results(info),
      args: {
        query: { type: GraphQLString, description: "A filter expression of the query language; empty or absent: every record." },
        limit: { type: LongScalar },
        offset: { type: GraphQLString, description: "The continuationToken of the previous page." },
      },
      extensions: { listSize: types.listSize(info) },
      resolve: (_source, args: { query?: string | null; limit?: number | null; offset?: string | null }, { app, ctx }) =>
        app.domain.query(ctx, info, {
          q: args.query ?? "",
          ...(args.limit != null ? { limit: args.limit } : {}),
          ...(args.offset != null ? { offset: args.offset } : {}),
        }),
    },
  };
}

/** Create, update (full replace) and delete go through the same domain operations as REST. */
export function modelMutations(info: ModelInfo, types: ModelTypes): Fields {
  const input = types.input(info);
  const inputArgs = input ? { [info.name]: { type: new GraphQLNonNull(input) } } : {};
  const { args: keyArgs, key } = writeKeyArgs(info, types);
  const update: GraphQLFieldConfig<unknown, GraphQLContext> = {
    type: types.object(info),
    args: { ...keyArgs, ...inputArgs },
    resolve: async (_source, args: Args, { app, ctx }) => (await app.domain.update(ctx, info, key(args), args[info.name] ?? {})).data,
  };
  return {
    [`create${info.name}`]: {
      type: types.object(info),
      args: inputArgs,
      resolve: async (_source, args: Args, { app, ctx }) => (await app.domain.create(ctx, info, args[info.name] ?? {})).data,
    },
    [`update${info.name}`]: update,
    [`delete${info.name}`]: {
      type: types.deleteResult,
      args: keyArgs,
      resolve: async (_source, args: Args, { app, ctx }) => {
        await app.domain.delete(ctx, info, key(args));
        return { success: true };
      },
    },
  };
}

/** `me`: the identity model's record of the current user; null when anonymous. */
export function meQuery(identity: ModelInfo, types: ModelTypes): Fields {
  const keyField = identity.keyFields[0] as string;
  return {
    me: {
      type: types.object(identity),
      resolve: async (_source, _args, { app, ctx }): Promise<Item | null> => {
        const userId = ctx.getCurrentUserId();
        if (userId === undefined) return null;
        return orNull(async () => (await app.domain.get(ctx, identity, { [keyField]: userId })).data);
      },
    },
  };
}
