import { GraphQLObjectType, GraphQLSchema, validateSchema, type GraphQLFieldConfigMap } from "graphql";
import type { Application } from "../core/application.ts";
import type { GraphQLContext } from "./context.ts";
import { meQuery, modelMutations, modelQueries } from "./crud.ts";
import { TypeConverter } from "./json-types.ts";
import { ModelTypes } from "./model-types.ts";
import { operationFields } from "./operations.ts";
import { AnyScalar, DateScalar, LongScalar } from "./scalars.ts";
import { graphqlOptions, type GraphQLOptions } from "./service.ts";
import { modelSubscriptions } from "./subscriptions.ts";

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;

/** Adds fields to a root type, refusing a second field of the same name (two models, an operation). */
function add(target: Fields, fields: Fields, root: string): void {
  for (const [name, field] of Object.entries(fields)) {
    if (name in target) throw new Error(`GraphQL: two ${root} fields are named '${name}'`);
    target[name] = field;
  }
}

export interface SchemaBuildOptions {
  /**
   * Skip graphql-js's type-system validation (otherwise run by the first request): only for a
   * schema whose definition `npm run build` / `serverless package` already validated
   * (`checkedGraphQLSchema`), as the deployed functions' is.
   */
  assumeValid?: boolean;
}

/**
 * Generates the schema from the registry in the spec's order (part 1): the (final) models, one
 * object and one input type each, CRUD queries and mutations, operations, subscriptions, then the
 * schema object. The one source of truth: the SDL in schema-cache/ is printed from this.
 */
export function buildGraphQLSchema(app: Application, options: GraphQLOptions = graphqlOptions(app), build: SchemaBuildOptions = {}): GraphQLSchema {
  const types = new ModelTypes(app, new TypeConverter());
  const models = app.models();
  const query: Fields = {};
  const mutation: Fields = {};
  const subscription: Fields = {};
  for (const info of models) {
    types.object(info);
    types.input(info);
  }
  for (const info of models) {
    add(query, modelQueries(info, types), "Query");
    add(mutation, modelMutations(info, types), "Mutation");
  }
  const identity = models.find((info) => info.cls.identity && info.keyFields.length === 1);
  if (options.exposeMe && identity) add(query, meQuery(identity, types), "Query");
  for (const operation of operationFields(app, types)) {
    add(operation.root === "query" ? query : mutation, { [operation.name]: operation.field }, operation.root === "query" ? "Query" : "Mutation");
  }
  if (options.subscriptions) for (const info of models) add(subscription, modelSubscriptions(info, types), "Subscription");
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: "Query", fields: query }),
    mutation: Object.keys(mutation).length > 0 ? new GraphQLObjectType({ name: "Mutation", fields: mutation }) : null,
    subscription: Object.keys(subscription).length > 0 ? new GraphQLObjectType({ name: "Subscription", fields: subscription }) : null,
    // Every model gets a type, reachable from a root field or not: relations may name any model.
    types: [...models.flatMap((info) => [types.object(info), types.results(info)]), types.deleteResult, LongScalar, DateScalar, AnyScalar],
    assumeValid: build.assumeValid ?? false,
  });
}

/**
 * The schema, refused when graphql-js's type-system validation finds a problem our generator does
 * not catch itself (e.g. an operation field named `__x`, reserved for introspection). The build
 * and the packaging check render schema-cache/ through this, so a deployed definition's schema is
 * known to be valid before any function builds it.
 */
export function checkedGraphQLSchema(app: Application, options: GraphQLOptions = graphqlOptions(app)): GraphQLSchema {
  const schema = buildGraphQLSchema(app, options);
  const errors = validateSchema(schema);
  if (errors.length > 0) throw new Error(`GraphQL: the generated schema is invalid: ${errors.map((e) => e.message).join("; ")}`);
  return schema;
}
