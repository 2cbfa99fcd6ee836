import { authenticationOf } from "../../lib/auth/service.ts";
import type { Application } from "../../lib/core/application.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { GraphQLEndpoint } from "../../lib/graphql/http.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { httpEvent } from "../../test/support/http-events.ts";
import { ALICE } from "../warm/blog.ts";
import { LIST, MUTATION, SINGLE } from "../warm/queries.ts";
import { lambdaTask, type Handler, type Task } from "../warm/tasks.ts";

/** One request, served by the GraphQL handler with each executor. */
export interface ExecutorScenario {
  measure: string;
  ours: Task;
  graphqlJs: Task;
}

export const VARIANTS = ["ours", "graphql-js execute"] as const;

/**
 * The warm section's GraphQL requests, each served by two handlers that differ only in the
 * executor graphql-helix is given: ours (plans, graphql-js for what it declines) and graphql-js's
 * `execute`. Both are built as `graphqlHandler` builds one, over the same schema object and the
 * same application (so the same store and document-cache settings).
 */
export async function executorScenarios(app: Application): Promise<ExecutorScenario[]> {
  const ours = graphqlHandler(app);
  const endpoint = new GraphQLEndpoint(app, ours.endpoint.schema, graphqlOptions(app), "graphql-js");
  const graphqlJs = httpHandler("graphql", (request) => endpoint.handle(request));
  const auth = authenticationOf(app);
  if (!auth) throw new Error("the bench blog has no authentication service");
  const bearer = `Bearer ${(await auth.login(ALICE, "bench")).access_token}`;
  const gql = (query: string, authorization?: string) => httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body: { query }, headers: authorization ? { authorization } : {} });
  // Each handler its own copy of the event (a handler keeps per-event state while it serves one).
  const scenario = (measure: string, event: () => unknown): ExecutorScenario => ({
    measure,
    ours: lambdaTask(VARIANTS[0], ours as unknown as Handler, event()),
    graphqlJs: lambdaTask(VARIANTS[1], graphqlJs as unknown as Handler, event()),
  });
  return [
    scenario("GraphQL single record (3 fields)", () => gql(SINGLE)),
    scenario("GraphQL 50 posts + author + tags", () => gql(LIST)),
    scenario("GraphQL mutation (updatePost)", () => gql(MUTATION, bearer)),
  ];
}
