import { composeApplication, type FunctionParts } from "../core/compose.ts";
import { graphiqlHandler } from "./graphiql.ts";

/**
 * GraphiQL's function: a function of its own, so that its browser assets never load with the API's
 * GraphQL function. It reads no data, no secret and validates nothing: its application alone.
 */
export async function graphiqlFunction(parts: Pick<FunctionParts, "app">) {
  return graphiqlHandler(await composeApplication("GraphiQL", parts, []));
}
