import type { Application } from "../core/application.ts";
import { Type, type Static } from "../core/schema.ts";
import { Service } from "../core/service.ts";

const Limits = Type.Object(
  {
    /** Nesting of selections, the root field counting as 1 (introspection not counted). */
    maxDepth: Type.Integer({ minimum: 1, default: 10 }),
    maxAliases: Type.Integer({ minimum: 0, default: 15 }),
    maxRootFields: Type.Integer({ minimum: 1, default: 20 }),
    /** Lexical tokens of the document: bounds parsing work before anything else happens. */
    maxTokens: Type.Integer({ minimum: 1, default: 1000 }),
    /** Estimated fields resolved: each field 1, times the sizes of the lists it sits in. */
    maxCost: Type.Integer({ minimum: 1, default: 10_000 }),
    /** Assumed size of a list without a `limit` (many-to-many, arrays of objects). */
    listFactor: Type.Integer({ minimum: 1, default: 10 }),
  },
  { default: {} },
);

export const GraphQLOptionsSchema = Type.Object({
  exposeGraphiQL: Type.Boolean({ default: true }),
  exposeMe: Type.Boolean({ default: true }),
  /** Standard introspection, on by default; `GRAPHQL_INTROSPECTION=false` turns it off for a stage. */
  introspection: Type.Boolean({ default: true }),
  /** Without it the schema has no Subscription type (`subscriptionType` is null). */
  subscriptions: Type.Boolean({ default: true }),
  limits: Limits,
  /** Parsed and validated documents kept per instance, by query text. */
  documentCacheSize: Type.Integer({ minimum: 0, default: 500 }),
  /** What GraphiQL opens with (graphiql-page.ts); unset: a list of the first model's records. */
  graphiqlDocument: Type.Optional(Type.String({ maxLength: 20_000 })),
});

export type GraphQLOptions = Static<typeof GraphQLOptionsSchema>;
export type GraphQLLimits = Static<typeof Limits>;

export const DEFAULT_LIMITS: GraphQLLimits = { maxDepth: 10, maxAliases: 15, maxRootFields: 20, maxTokens: 1000, maxCost: 10_000, listFactor: 10 };

export const DEFAULT_OPTIONS: GraphQLOptions = {
  exposeGraphiQL: true,
  exposeMe: true,
  introspection: true,
  subscriptions: true,
  limits: DEFAULT_LIMITS,
  documentCacheSize: 500,
};

/**
 * `Framework/GraphQLService`: the GraphQL endpoint. It needs no configuration: every model of the
 * domain is discovered from the application.
 */
export class GraphQLService extends Service<GraphQLOptions> {
  static override readonly type = "Framework/GraphQLService";
  static override readonly options = GraphQLOptionsSchema;
}

/** The configured options (defaults filled), or the defaults when no GraphQL service is configured. */
export function graphqlOptions(app: Application, env: NodeJS.ProcessEnv = process.env): GraphQLOptions {
  const configured = app.services().find((entry) => entry.service instanceof GraphQLService)?.service.options as Partial<GraphQLOptions> | undefined;
  const options: GraphQLOptions = { ...DEFAULT_OPTIONS, ...configured, limits: { ...DEFAULT_LIMITS, ...configured?.limits } };
  const introspection = env.GRAPHQL_INTROSPECTION;
  if (introspection === "true" || introspection === "false") options.introspection = introspection === "true";
  // A deployed stage without GraphiQL (the operations plugin sets it unless `--param graphiql=true`):
  // no redirect to a page that is not there.
  if (env.GRAPHIQL === "false") options.exposeGraphiQL = false;
  return options;
}
