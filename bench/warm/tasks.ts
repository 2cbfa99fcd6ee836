import middy from "@middy/core";
import type { Context as LambdaContext } from "aws-lambda";
import { execute, parse, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import type { Application } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { graphqlContext } from "../../lib/graphql/context.ts";
import { lambdaContext } from "../../test/support/http-events.ts";

export type Handler = (event: never, context: LambdaContext) => Promise<unknown>;

export interface Task {
  name: string;
  run: () => Promise<unknown>;
  /** What a correct answer looks like; checked once before timing, so no error path is measured. */
  check: () => Promise<void>;
  /** Run before and after each of its timed runs (tinybench's beforeAll/afterAll): a setting of its own. */
  before?: () => void;
  after?: () => void;
}

/** `env` set (a value) or removed (undefined); returns what restores the previous values. */
function setEnv(env: Record<string, string | undefined>): () => void {
  const saved: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) {
    saved[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/**
 * What `build` returns when run under `env`: a function reads its metrics settings when it is
 * built, so a handler deployed with other settings is built under them.
 */
export function builtUnder<T>(env: Record<string, string | undefined>, build: () => T): T {
  const restore = setEnv(env);
  try {
    return build();
  } finally {
    restore();
  }
}

/**
 * `task` timed under an environment of its own: `env` set (a value) or removed (undefined) before
 * its check and each timed run, the previous values restored after (what an invocation reads as it
 * runs, such as Lambda's trace header).
 */
function withEnv(task: Task, name: string, env: Record<string, string | undefined>): Task {
  let restore = () => {};
  const apply = () => {
    restore = setEnv(env);
  };
  return {
    name,
    run: task.run,
    check: async () => {
      apply();
      try {
        await task.check();
      } finally {
        restore();
      }
    },
    before: apply,
    after: () => restore(),
  };
}

/** A sampled invocation's trace header, as Lambda sets it when the function is traced. */
const TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";

/**
 * A handler timed as a traced stage runs it: TRACING set (the trace id on its lines) and the
 * invocation sampled, its spans exported to `endpoint` (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) before
 * it answers. The handler and its clients must have been built with TRACING=true (builtUnder;
 * bench/warm/dynamodb.ts tracedBlog).
 */
export function withTracing(task: Task, endpoint: string): Task {
  return withEnv(task, `${task.name}, tracing on`, { TRACING: "true", _X_AMZN_TRACE_ID: TRACE_HEADER, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint });
}

/**
 * The handler built with the service's metrics off, as `--param metrics=false` deploys it
 * (METRICS=off: no metric members or line; the request log line and its DynamoDB cost stay), on
 * the same event: what the metrics cost a warm request is ours against this.
 */
export function withoutMetrics(build: () => Handler, event: unknown): Task {
  return lambdaTask("ours without metrics", builtUnder({ METRICS: "off" }, build), event);
}

const lambda = lambdaContext();

interface Answer {
  statusCode: number;
  body: string;
}

function expectAnswer(name: string, answer: unknown, status: number): void {
  const { statusCode, body } = answer as Answer;
  const parsed = JSON.parse(body || "null") as { errors?: unknown } | null;
  if (statusCode !== status || (parsed && typeof parsed === "object" && "errors" in parsed)) {
    throw new Error(`${name}: expected ${status} without errors, got ${statusCode}: ${body.slice(0, 300)}`);
  }
}

/** An API Gateway handler called with one prepared event, as Lambda calls it warm. */
export function lambdaTask(name: string, handler: Handler, event: unknown, status = 200): Task {
  const run = () => handler(event as never, lambda);
  return { name, run, check: async () => expectAnswer(name, await run(), status) };
}

const BARE_BODY = JSON.stringify({ slug: "p7", title: "Title of p7", status: "published" });
const bare = async () => ({ statusCode: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: BARE_BODY });

/** Floor: a handler that does nothing but answer. */
export const bareTask = (): Task => lambdaTask("bare handler", bare, {});
/** Reference: the same, behind middy with no middleware. */
export const middyBareTask = (): Task => lambdaTask("middy(bare)", middy().handler(bare) as unknown as Handler, {});

type Variables = Record<string, unknown>;

/**
 * Floor of a GraphQL request: the document compiled once by graphql-jit and run over the same
 * schema and resolvers (domain calls, batched loads), serialised; no HTTP, no checks.
 */
export function jitTask(name: string, app: Application, schema: GraphQLSchema, query: string, userId?: string, variables: Variables = {}): Task {
  const compiled = compileQuery(schema, parse(query));
  if (!isCompiledQuery(compiled)) throw new Error(`${name}: graphql-jit could not compile the query`);
  const run = async () => JSON.stringify(await compiled.query(undefined, graphqlContext(app, new Context(userId ? { userId } : {})), variables));
  return { name, run, check: async () => expectAnswer(name, { statusCode: 200, body: await run() }, 200) };
}

/** Reference: graphql-js execute over a document parsed and validated once. */
export function graphqlJsTask(name: string, app: Application, schema: GraphQLSchema, query: string, userId?: string): Task {
  const document = parse(query);
  const run = async () => JSON.stringify(await execute({ schema, document, contextValue: graphqlContext(app, new Context(userId ? { userId } : {})) }));
  return { name, run, check: async () => expectAnswer(name, { statusCode: 200, body: await run() }, 200) };
}
