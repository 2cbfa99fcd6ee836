import type { Application } from "../core/application.ts";
import { httpHandler } from "../http/handler.ts";
import { GraphQLEndpoint } from "./http.ts";
import { buildGraphQLSchema, type SchemaBuildOptions } from "./schema.ts";
import { graphqlOptions, type GraphQLOptions } from "./service.ts";

/** The GraphQL Lambda handler: the executable schema is built once, when this is called. */
export function graphqlHandler(app: Application, options: GraphQLOptions = graphqlOptions(app), build: SchemaBuildOptions = {}) {
  const endpoint = new GraphQLEndpoint(app, buildGraphQLSchema(app, options, build), options);
  return Object.assign(
    httpHandler("graphql", (request) => endpoint.handle(request)),
    { endpoint },
  );
}
