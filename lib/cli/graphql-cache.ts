import { printSchema } from "graphql";
import { checkedGraphQLSchema } from "../graphql/schema.ts";
import type { CacheRenderer } from "./cache.ts";

/**
 * `schema-cache/schema.graphql`: the generated SDL, committed so that schema changes show in
 * review and a stale copy fails the build check. The handler generates the executable schema
 * from the models at cold start (measured no slower than building it from this SDL, and it
 * needs no resolver re-attachment), so the generator stays the single source of truth. Rendering
 * validates the schema (graphql-js's type-system rules): `npm run build` and the packaging check
 * refuse an invalid one, which lets the deployed function skip that validation at cold start.
 */
export const graphqlCache: CacheRenderer = (app) => ({
  "schema.graphql": `${printSchema(checkedGraphQLSchema(app))}\n`,
});
