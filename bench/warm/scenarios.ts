import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { authenticationOf } from "../../lib/auth/service.ts";
import type { Application } from "../../lib/core/application.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { httpEvent } from "../../test/support/http-events.ts";
import { yogaFor, yogaLambda } from "../fixtures/yoga-app.ts";
import { ALICE, seededBlog, WRITERS } from "./blog.ts";
import { LIST, MUTATION, REST_QUERY, SINGLE } from "./queries.ts";
import { honoRest } from "./rest-peer.ts";
import { bareTask, builtUnder, graphqlJsTask, jitTask, lambdaTask, middyBareTask, withoutMetrics, withTracing, type Handler, type Task } from "./tasks.ts";

export interface Scenario {
  measure: string;
  ours: Task;
  floor: Task;
  peer: Task;
  /** Other implementations worth a line of their own (not bars). */
  references: Task[];
  /** The least multiple of the peer's throughput ours must reach. */
  barVsPeer?: number;
  /** Records one answer carries: the figure's note then gives ours per record (microseconds). */
  records?: number;
  /** Ours with the service's metrics off: the metrics' cost is ours against it. */
  withoutMetrics?: Task;
  /** Ours as a traced stage runs it: what tracing costs is ours against this. */
  withTracing?: Task;
  /** Spans the stand-in OTLP endpoint has received so far. */
  spans?: () => number;
}

/** A traced copy of the application and where its spans go (the DynamoDB Local rows only). */
export interface Traced {
  app: Application;
  endpoint: string;
  received: () => number;
}

/**
 * Every warm scenario over one seeded blog on the in-process memory store (the framework's own
 * cost, no store latency), handlers built once as at cold start.
 */
export async function warmScenarios(app?: Application, traced?: Traced): Promise<Scenario[]> {
  app ??= await seededBlog();
  const rest = restHandler(app) as unknown as Handler;
  const graphql = graphqlHandler(app);
  const schema = graphql.endpoint.schema;
  const yoga = yogaLambda(yogaFor(app), app) as unknown as Handler;
  // Production authentication: ALICE signs in and her writes carry a bearer access token, which
  // ours and yoga verify alike through lib/http/identity.ts (signature, claims, session lookup).
  const auth = authenticationOf(app);
  if (!auth) throw new Error("the warm blog has no authentication service");
  const bearer = `Bearer ${(await auth.login(ALICE, "bench")).access_token}`;
  const hono = honoRest(app) as unknown as Handler;
  const ours = graphql as unknown as Handler;

  const get = httpEvent("GET", "/posts/p7", { routeKey: "GET /posts/{slug}" });
  const query = httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body: REST_QUERY(WRITERS[1] ?? "") });
  const gql = (q: string, authorization?: string) =>
    httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body: { query: q }, headers: authorization ? { authorization } : {} });

  return [
    {
      measure: "REST GET /posts/{slug}",
      barVsPeer: 2,
      ours: lambdaTask("ours", rest, get),
      floor: bareTask(),
      peer: lambdaTask("hono", hono, get),
      references: [middyBareTask()],
      withoutMetrics: withoutMetrics(() => restHandler(app) as unknown as Handler, get),
      ...(traced
        ? {
            withTracing: withTracing(
              lambdaTask(
                "ours",
                builtUnder({ TRACING: "true" }, () => restHandler(traced.app) as unknown as Handler),
                get,
              ),
              traced.endpoint,
            ),
            spans: traced.received,
          }
        : {}),
    },
    {
      measure: "REST query (PUT /posts, by author)",
      ours: lambdaTask("ours", rest, query),
      floor: bareTask(),
      peer: lambdaTask("hono", hono, query),
      references: [],
    },
    {
      measure: "GraphQL single record (3 fields)",
      barVsPeer: 10,
      ours: lambdaTask("ours", ours, gql(SINGLE)),
      floor: jitTask("graphql-jit", app, schema, SINGLE),
      peer: lambdaTask("yoga", yoga, gql(SINGLE)),
      references: [graphqlJsTask("graphql-js cached", app, schema, SINGLE)],
      withoutMetrics: withoutMetrics(() => graphqlHandler(app) as unknown as Handler, gql(SINGLE)),
    },
    {
      measure: "GraphQL 50 posts + author + tags",
      barVsPeer: 2,
      records: 50,
      ours: lambdaTask("ours", ours, gql(LIST)),
      floor: jitTask("graphql-jit", app, schema, LIST),
      peer: lambdaTask("yoga", yoga, gql(LIST)),
      references: [graphqlJsTask("graphql-js cached", app, schema, LIST)],
    },
    {
      measure: "GraphQL mutation (updatePost)",
      ours: lambdaTask("ours", ours, gql(MUTATION, bearer)),
      floor: jitTask("graphql-jit", app, schema, MUTATION, ALICE),
      peer: lambdaTask("yoga", yoga, gql(MUTATION, bearer)),
      references: [],
    },
  ];
}
