import type { Application } from "../../lib/core/application.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions, type GraphQLOptions } from "../../lib/graphql/service.ts";
import { blog } from "../support/blog.ts";
import { call, httpEvent, type Answer } from "../support/http-events.ts";

export interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions: { code: string; [k: string]: unknown } }[];
}

export interface Ask {
  variables?: Record<string, unknown>;
  operationName?: string;
  user?: string;
  accept?: string;
}

/** A blog on the memory store with its GraphQL handler, and a client for it. */
export function graphqlBlog(overrides: Partial<GraphQLOptions> = {}, app: Application = blog()) {
  const base = graphqlOptions(app);
  const handler = graphqlHandler(app, { ...base, ...overrides, limits: { ...base.limits, ...overrides.limits } });
  const headers = (ask: Ask) => ({
    ...(ask.user ? { "x-test-user": ask.user } : {}),
    ...(ask.accept ? { accept: ask.accept } : {}),
  });
  const post = async (query: string, ask: Ask = {}): Promise<Answer & { body: GraphQLBody }> =>
    (await call(
      handler,
      httpEvent("POST", "/graphql", {
        body: { query, ...(ask.variables ? { variables: ask.variables } : {}), ...(ask.operationName ? { operationName: ask.operationName } : {}) },
        headers: headers(ask),
      }),
    )) as Answer & { body: GraphQLBody };
  const get = async (query: string, ask: Ask = {}): Promise<Answer & { body: GraphQLBody }> => {
    const search = new URLSearchParams({ query, ...(ask.variables ? { variables: JSON.stringify(ask.variables) } : {}) });
    return (await call(handler, httpEvent("GET", `/graphql?${search.toString()}`, { headers: headers(ask) }))) as Answer & { body: GraphQLBody };
  };
  /** The data of a request that must succeed without errors. */
  const data = async (query: string, ask: Ask = {}): Promise<Record<string, unknown>> => {
    const answer = await post(query, ask);
    if (answer.body.errors) throw new Error(`unexpected errors: ${JSON.stringify(answer.body.errors)}`);
    return answer.body.data as Record<string, unknown>;
  };
  return { app, handler, post, get, data };
}

export function enableTestUser(): () => void {
  process.env.IS_OFFLINE = "true";
  process.env.ALLOW_TEST_USER = "true";
  return () => {
    delete process.env.IS_OFFLINE;
    delete process.env.ALLOW_TEST_USER;
  };
}
