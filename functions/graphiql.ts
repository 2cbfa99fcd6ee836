import { app } from "../app/index.ts";
import { graphiqlHandler } from "../lib/graphql/graphiql.ts";

// A function of its own, so that GraphiQL's 4 MB of browser assets never load with the API's
// GraphQL function; it reads no data and needs no store.
export const handler = graphiqlHandler(app);
