import { composeApplication, type Composed } from "../core/compose.ts";
import { graphqlHandler } from "./handler.ts";
import { graphqlOptions } from "./service.ts";

export type GraphQLFunctionParts = Composed<"secrets" | "store" | "validators" | "listing"> & {
  /**
   * The schema was checked when the function was packaged (schema-cache/schema.graphql is rendered
   * through graphql-js's type-system validation, and packaging refuses a stale cache), so the
   * first request does not validate it again.
   */
  assumeValidSchema?: boolean;
};

/** The GraphQL function: the executable schema and the document cache are built once per cold start. */
export async function graphqlFunction(parts: GraphQLFunctionParts) {
  const app = await composeApplication("GraphQL", parts, ["secrets", "store", "validators", "listing"]);
  return graphqlHandler(app, graphqlOptions(app), { assumeValid: parts.assumeValidSchema ?? false });
}
