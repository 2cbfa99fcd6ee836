import { GraphQLString, type GraphQLFieldConfigMap } from "graphql";
import type { ModelInfo } from "../core/model-info.ts";
import type { GraphQLContext } from "./context.ts";
import type { ModelTypes } from "./model-types.ts";
import { pluralName } from "./names.ts";

/**
 * Subscription fields: `<Model>(<key>)` delivers the record after each change
 * (null once deleted), `<Models>(query)` an event `{type, key, <model>}` for matching records.
 * The event source (`subscribe`) is attached by the WebSocket face; here each delivered payload
 * is already the field's value.
 */
export function modelSubscriptions(info: ModelInfo, types: ModelTypes): GraphQLFieldConfigMap<unknown, GraphQLContext> {
  return {
    [info.name]: {
      type: types.object(info),
      args: types.keyArgs(info),
      resolve: (payload) => payload ?? null,
    },
    [pluralName(info)]: {
      type: types.event(info),
      args: { query: { type: GraphQLString, description: "A filter expression of the query language." } },
      resolve: (payload) => payload,
    },
  };
}
