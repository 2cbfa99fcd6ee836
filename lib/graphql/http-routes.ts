import { GRAPHIQL_PATH } from "./graphiql-paths.ts";

/**
 * The HTTP routes serverless.yml gives the graphql and graphiql functions. The REST catch-all
 * knows them (without loading graphql-js) so that another method on these paths is a 405 naming
 * the allowed ones, not a 404.
 */
export const GRAPHQL_HTTP_ROUTES = [
  { method: "GET", path: "/graphql" },
  { method: "POST", path: "/graphql" },
  { method: "GET", path: GRAPHIQL_PATH },
  { method: "GET", path: `${GRAPHIQL_PATH}/{asset}` },
] as const;
