import { identifyingApp } from "../app/definition.ts";
import { graphiqlFunction } from "../lib/graphql/graphiql-function.ts";

// A function of its own, so that GraphiQL's 4 MB of browser assets never load with the API's
// GraphQL function; it reads no data, no secret, and needs no store.
export const handler = await graphiqlFunction({ app: identifyingApp });
