import { buildApp, identifyingServiceTypes } from "../app/definition.ts";
import { graphiqlHandler } from "../lib/graphql/graphiql.ts";

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle. It runs no login flow
// and issues no credential: the providers are built as their descriptions and the authentication
// service as AccessAuthentication (app/definition.ts).
const app = buildApp(identifyingServiceTypes());

// A function of its own, so that GraphiQL's 4 MB of browser assets never load with the API's
// GraphQL function; it reads no data and needs no store.
export const handler = graphiqlHandler(app);
