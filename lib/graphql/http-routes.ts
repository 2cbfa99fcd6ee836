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

/**
 * The routes a stage serves: without GraphiQL's when it is deployed without it (GRAPHIQL=false, set
 * by the operations plugin unless `--param graphiql=true`), so the catch-all answers its paths 404.
 */
export function graphqlHttpRoutes(env: NodeJS.ProcessEnv = process.env): readonly { method: string; path: string }[] {
  return env.GRAPHIQL === "false" ? GRAPHQL_HTTP_ROUTES.filter((r) => !r.path.startsWith(GRAPHIQL_PATH)) : GRAPHQL_HTTP_ROUTES;
}
