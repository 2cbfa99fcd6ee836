import { existsSync } from "node:fs";
import { join } from "node:path";
import { httpEvent } from "../../test/support/http-events.ts";

export interface Variant {
  name: string;
  /** The entry bundled with serverless.yml's esbuild options. */
  entry: string;
  event: unknown;
  /** The status a correct answer has: a cold start that failed is not a figure. */
  status: number;
  /**
   * What a correct answer's body holds (its first 200 characters): a GraphQL answer of 200 with
   * `errors`, or a 404 that is really a crash mapped to an error, is not a figure either.
   */
  body: RegExp;
  /** The project root the entry is bundled from (a checkout of the baseline commit for "before" rows). */
  root?: string;
  /** Environment of its own beside the common one (bench/cold/spawn.ts coldEnv). */
  env?: Record<string, string>;
}

const GRAPHQL_QUERY = { query: "{ Posts(limit: 5) { results { slug title status } } }" };

// The GraphQL function and its peer answer the same POST; the floors ignore what they get.
const graphqlEvent = httpEvent("POST", "/graphql", { body: GRAPHQL_QUERY, routeKey: "POST /graphql" });
// A model read on the per-route function. The DynamoDB store is configured and its one GetItem goes
// to the bench's loopback endpoint, which finds nothing: the domain answers 404 after the same
// route lookup, permission path and repository read as a hit.
const restEvent = httpEvent("GET", "/posts/hello-world", { routeKey: "GET /posts/{slug}" });
// A handshake offering no subprotocol: the realtime face (schema, document cache, DynamoDB and
// management clients) is built and the request answered, without a DynamoDB write.
const websocketEvent = {
  requestContext: {
    routeKey: "$connect",
    connectionId: "cold-start=",
    connectedAt: 0,
    domainName: "abc.execute-api.us-east-1.amazonaws.com",
    stage: "dev",
    apiId: "abc",
  },
  headers: { Host: "abc.execute-api.us-east-1.amazonaws.com" },
};

// An unknown refresh token: the function of the session routes is loaded (jose, the services, its
// route table) and answers 401 after one read of the refresh table (the stub finds nothing).
const authEvent = httpEvent("POST", "/auth/refresh", { body: { refresh_token: "x".repeat(43) }, routeKey: "POST /auth/refresh" });

// A login with an address no account has: the login function (email provider's flows, jose,
// scrypt) is loaded, looks the address up (the stub finds nothing), verifies the password against
// a dummy hash so an unknown address costs what a known one does, and answers 401.
const loginEvent = httpEvent("POST", "/auth/email/login", {
  body: { email: "nobody@example.com", password: "not the password 123" },
  routeKey: "POST /auth/email/login",
});

// One INSERT on the posts table: the stream function (realtime face) turns it into Post.Created and
// looks its subscribers up (the stub has none).
const streamEvent = {
  Records: [
    {
      eventID: "1",
      eventName: "INSERT",
      eventSource: "aws:dynamodb",
      awsRegion: "us-east-1",
      eventSourceARN: "arn:aws:dynamodb:us-east-1:123456789012:table/blog-bench-Post/stream/2026-01-01T00:00:00.000",
      dynamodb: {
        Keys: { slug: { S: "hello-world" } },
        NewImage: { slug: { S: "hello-world" }, title: { S: "Hello" }, content: { S: "c" }, status: { S: "published" }, viewCount: { N: "0" } },
        SequenceNumber: "1",
        StreamViewType: "NEW_AND_OLD_IMAGES",
      },
    },
  ],
};

// A dry run of the v3 migration over empty tables (the stub's Scans find nothing).
const migrateEvent = { dryRun: true };

// The floors answer {"ok":true}; the GraphQL function and yoga list no posts (the stub finds none).
const OK = /^\{"ok":true\}$/;
const NO_POSTS = /^\{"data":\{"Posts":\{"results":\[\]\}\}\}$/;

export const FLOOR_A: Variant = { name: "floor (a) bare", entry: "bench/fixtures/bare.ts", event: restEvent, status: 200, body: OK };
export const FLOOR_B: Variant = {
  name: "floor (b) bare+DynamoDB clients+one GetItem",
  entry: "bench/fixtures/bare-dynamodb.ts",
  event: restEvent,
  status: 200,
  body: OK,
};
export const FLOOR_B_NO_CALL: Variant = {
  name: "floor (b) without its call (reference)",
  entry: "bench/fixtures/bare-dynamodb-nocall.ts",
  event: restEvent,
  status: 200,
  body: OK,
};
export const FLOOR_B_GRAPHQL: Variant = {
  name: "floor (b)+graphql-js",
  entry: "bench/fixtures/bare-graphql.ts",
  event: graphqlEvent,
  status: 200,
  body: /^\{"data":\{"ok":true\}\}$/,
};
export const FLOOR_B_WEBSOCKET: Variant = {
  name: "floor (b)+management client",
  entry: "bench/fixtures/bare-websocket.ts",
  event: websocketEvent,
  status: 200,
  body: /^$/,
};
// What a metrics writer costs at cold start: ours and Powertools' Metrics, each on floor (b)
// (the metrics-writers section, bench/metrics-writers/).
export const FLOOR_B_EMF: Variant = {
  name: "floor (b)+our EMF writer (lib/core/metrics.ts)",
  entry: "bench/fixtures/bare-dynamodb-emf.ts",
  event: restEvent,
  status: 200,
  body: OK,
};
export const FLOOR_B_POWERTOOLS: Variant = {
  name: "floor (b)+Powertools Metrics",
  entry: "bench/fixtures/bare-dynamodb-powertools.ts",
  event: restEvent,
  status: 200,
  body: OK,
};
export const YOGA: Variant = { name: "peer (c) graphql-yoga", entry: "bench/fixtures/yoga.ts", event: graphqlEvent, status: 200, body: NO_POSTS };
export const GRAPHQL: Variant = { name: "graphql function", entry: "functions/graphql.ts", event: graphqlEvent, status: 200, body: NO_POSTS };
// The function API Gateway sends `GET /posts/{slug}` to (per-route packaging: a record read's own).
export const REST: Variant = {
  name: "REST route function (GET /posts/{slug})",
  entry: "functions/rest-read.ts",
  event: restEvent,
  status: 404,
  body: /^\{"code":404,"message":"Post not found"\}$/,
};
export const WEBSOCKET: Variant = {
  name: "ws function ($connect)",
  entry: "functions/ws.ts",
  event: websocketEvent,
  status: 400,
  body: /^Subprotocol not acceptable/,
};

// The function API Gateway sends `POST /auth/refresh` to (per-route packaging: the session routes' own).
export const AUTH: Variant = {
  name: "auth route function (POST /auth/refresh)",
  entry: "functions/auth-session.ts",
  event: authEvent,
  status: 401,
  body: /"reason":"INVALID_REFRESH_TOKEN"/,
};

// The catch-all REST function (every model route not given its own function: writes, queries).
export const REST_ALL: Variant = {
  name: "REST catch-all function (GET /posts/{slug})",
  entry: "functions/rest.ts",
  event: restEvent,
  status: 404,
  body: /^\{"code":404,"message":"Post not found"\}$/,
};
export const LOGIN: Variant = {
  name: "login function (POST /auth/email/login, unknown address)",
  entry: "functions/auth.ts",
  event: loginEvent,
  status: 401,
  body: /"code":401/,
};
export const STREAM: Variant = {
  name: "stream function (one INSERT)",
  entry: "functions/stream.ts",
  event: streamEvent,
  status: 0,
  body: /^\{"batchItemFailures":\[\]\}$/,
};
export const MIGRATE: Variant = {
  name: "migrate function (dry run, empty tables)",
  entry: "functions/migrate.ts",
  event: migrateEvent,
  status: 0,
  body: /^\{"dryRun":true,"passes":1,"idents":\{"migrated":0,"skipped":0,"failed":\[\].*"incomplete":false/,
};

/** Throws unless a cold start's answer is the variant's correct one: a failed start is not a figure. */
export function checkAnswer(variant: Variant, status: number | undefined, body: string | undefined, how = ""): void {
  if (status !== variant.status || !variant.body.test(body ?? "")) {
    throw new Error(`${variant.name}${how}: expected status ${variant.status} and a body matching ${variant.body.source}, got ${status}: ${body}`);
  }
}

/** A sampled invocation's trace header, as Lambda sets it on a traced function. */
export const SAMPLED_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";

/**
 * The GraphQL function on a stage deployed with `--param tracing=true`: TRACING set, the invocation
 * sampled (Lambda's trace header), its spans exported before it answers to an OTLP endpoint the
 * section listens on (`endpoint`: set when the section starts).
 */
export function tracedGraphql(endpoint: string): Variant {
  return {
    ...GRAPHQL,
    name: "graphql function, tracing on",
    env: { TRACING: "true", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, _X_AMZN_TRACE_ID: SAMPLED_HEADER },
  };
}

export const VARIANTS = [
  FLOOR_A,
  FLOOR_B,
  FLOOR_B_NO_CALL,
  FLOOR_B_GRAPHQL,
  FLOOR_B_WEBSOCKET,
  YOGA,
  GRAPHQL,
  REST,
  REST_ALL,
  WEBSOCKET,
  AUTH,
  LOGIN,
  STREAM,
  MIGRATE,
];

// Where a checkout older than the per-route functions served the same request.
const EARLIER_ENTRY: Record<string, string> = { "functions/rest-read.ts": "functions/rest.ts", "functions/auth-session.ts": "functions/auth.ts" };

/**
 * The same functions bundled from a checkout of an earlier commit, measured in the same rounds;
 * `now` is the variant each is read against.
 */
export function baselineVariants(root: string): (Variant & { now: Variant })[] {
  const entryIn = (entry: string) => (existsSync(join(root, entry)) ? entry : (EARLIER_ENTRY[entry] ?? entry));
  return [GRAPHQL, REST, AUTH].map((now) => ({ ...now, entry: entryIn(now.entry), name: `${now.name}, before`, root, now }));
}
