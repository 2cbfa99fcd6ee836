import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { log } from "../../lib/core/log.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { dimensionSetsOf, parseEmf, unitOf, type EmfLine } from "../support/emf.ts";
import { injectFaults, sdkError } from "../support/faults.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { graphqlBlog } from "../graphql/support.ts";
import { withEnvironment } from "../support/offline-env.ts";
import { ownDynamoStore } from "../support/own-client.ts";

// The metrics settings are read when a handler is built: set before building it, put back after
// the file (test/support/offline-env.ts). Metric lines to stdout, as in Lambda (vitest.config.ts
// sends them nowhere), to read them; TRACING as on a stage deployed with `--param tracing=true`
// (the template sets it on every function): the handler reads it, and so does the client built under it.
withEnvironment({ METRICS_FILE: "", METRICS_NAMESPACE: "blog/test", TRACING: "true" });
const traceHeaderBefore = process.env._X_AMZN_TRACE_ID;

/** What DynamoDB answered, seen by a middleware of the test's own: calls and capacity units. */
const seen = { calls: 0, units: 0 };
let client: DynamoDBDocumentClient;
let app: Application;
let faults: ReturnType<typeof injectFaults>;
let rest: ReturnType<typeof restHandler>;

beforeAll(() => {
  // As in Lambda (no IS_OFFLINE): every invocation writes its EMF line to stdout. Over a client of
  // this file's own: the fault injection and the counter go with it.
  const own = ownDynamoStore();
  client = own.client;
  app = blog(own.store);
  faults = injectFaults(client);
  client.middlewareStack.add(
    (next) => async (args) => {
      seen.calls++;
      const result = await next(args);
      for (const c of [(result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity ?? []].flat())
        seen.units += c.CapacityUnits ?? 0;
      return result;
    },
    { step: "initialize", name: "testCounter" },
  );
  rest = restHandler(app);
});
afterAll(() => client.destroy());

/** Runs `work` and returns the stdout lines it wrote (EMF ones parsed) and its stderr lines. */
async function captured(work: () => Promise<unknown>): Promise<{ emf: EmfLine[]; raw: string[]; errors: string[] }> {
  const raw: string[] = [];
  const errors: string[] = [];
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (raw.push(String(chunk)), true));
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (errors.push(String(chunk)), true));
  try {
    await work();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { emf: raw.filter((l) => l.startsWith('{"_aws"')).map(parseEmf), raw, errors };
}

const get = (slug: string): APIGatewayProxyEventV2 => httpEvent("GET", `/posts/${slug}`, { routeKey: "GET /posts/{slug}" });

afterEach(() => {
  faults.reset();
  if (traceHeaderBefore === undefined) delete process.env._X_AMZN_TRACE_ID;
  else process.env._X_AMZN_TRACE_ID = traceHeaderBefore;
});

describe("metrics in CloudWatch's embedded metric format", () => {
  it("a REST request writes one EMF line: count and latency per route and status class, its DynamoDB calls and capacity", async () => {
    const slug = `emf-${randomUUID().slice(0, 8)}`;
    // Work before the request is not the request's: the line starts counting when it starts.
    await app.domain.create(as(ALICE), model(app, "Post"), post(slug));
    seen.calls = 0;
    seen.units = 0;
    const before = Date.now();
    const { emf } = await captured(() => call(rest, get(slug)));
    expect(emf).toHaveLength(1);
    const line = emf[0] as EmfLine;
    expect(line._aws.Timestamp).toBeGreaterThanOrEqual(before);
    expect(line._aws.CloudWatchMetrics.every((d) => d.Namespace === "blog/test")).toBe(true);
    expect(line).toMatchObject({ Service: "rest", Route: "GET /posts/{slug}", StatusClass: "2xx", Requests: 1, status: 200 });
    expect(dimensionSetsOf(line, "Requests")).toEqual(["Route,Service,StatusClass", "Service", ""]);
    expect(dimensionSetsOf(line, "Latency")).toEqual(["Route,Service,StatusClass", "Service", ""]);
    expect(dimensionSetsOf(line, "DynamoDBCalls")).toEqual(["Service", ""]);
    expect(unitOf(line, "Latency")).toBe("Milliseconds");
    expect(unitOf(line, "Requests")).toBe("Count");
    expect(line.Latency).toBeGreaterThan(0);
    // The figures are DynamoDB's own answers, as the test's middleware saw them.
    expect(seen.calls).toBeGreaterThan(0);
    expect(line.DynamoDBCalls).toBe(seen.calls);
    expect(line.DynamoDBReadUnits).toBeCloseTo(seen.units, 3);
    expect(line.DynamoDBReadUnits).toBeGreaterThan(0);
    expect(line).toMatchObject({ DynamoDBWriteUnits: 0, DynamoDBThrottles: 0 });
    expect(typeof line.requestId).toBe("string");
  });

  it("writes no metric line with METRICS=off (--param metrics=false), while the request log line keeps its DynamoDB cost", async () => {
    const slug = `emf-${randomUUID().slice(0, 8)}`;
    await app.domain.create(as(ALICE), model(app, "Post"), post(slug));
    // A function built with METRICS=off, as `--param metrics=false` deploys it.
    const metricsBefore = process.env.METRICS;
    process.env.METRICS = "off";
    const off = restHandler(app);
    if (metricsBefore === undefined) delete process.env.METRICS;
    else process.env.METRICS = metricsBefore;
    const requests: Record<string, unknown>[] = [];
    const info = vi.spyOn(log, "info").mockImplementation((message: string, fields?: Record<string, unknown>) => {
      if (message === "request") requests.push(fields ?? {});
      return false;
    });
    try {
      const { emf } = await captured(() => call(off, get(slug)));
      expect(emf).toEqual([]);
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ status: 200, dynamodbCalls: 1, itemsRead: 1 });
    } finally {
      info.mockRestore();
    }
    // Positive control: the same request to the function built with metrics on writes its line.
    const { emf } = await captured(() => call(rest, get(slug)));
    expect(emf).toHaveLength(1);
  });

  it("a missing record is a 4xx of the same route, never a path of its own", async () => {
    const { emf } = await captured(() => call(rest, get(`absent-${randomUUID()}`)));
    expect(emf[0]).toMatchObject({ Route: "GET /posts/{slug}", StatusClass: "4xx", status: 404 });
    expect(JSON.stringify(emf[0]?._aws)).not.toContain("absent-");
  });

  it("counts throttled attempts apart from calls: the SDK's retries are one call", async () => {
    const slug = `emf-${randomUUID().slice(0, 8)}`;
    await app.domain.create(as(ALICE), model(app, "Post"), post(slug));
    seen.calls = 0;
    faults.add({ times: 2, error: () => sdkError("ProvisionedThroughputExceededException", 400) });
    const { emf } = await captured(() => call(rest, get(slug)));
    expect(emf[0]).toMatchObject({ StatusClass: "2xx", DynamoDBThrottles: 2, DynamoDBCalls: seen.calls });
  });

  it("puts the request id and X-Ray's trace id on every log line the request writes, and on its metrics", async () => {
    process.env._X_AMZN_TRACE_ID = "Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1";
    faults.add({ times: 1, error: () => sdkError("ValidationException", 400, "broken on purpose") });
    const { emf, errors } = await captured(() => call(rest, get("anything")));
    const logged = errors.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.length).toBeGreaterThan(0);
    for (const entry of logged) expect(entry).toMatchObject({ requestId: emf[0]?.requestId, traceId: "1-67891233-abcdef012345678912345678" });
    expect(emf[0]).toMatchObject({ traceId: "1-67891233-abcdef012345678912345678" });
  });

  it("counts GraphQL operations refused by the limits, without dimensions", async () => {
    const g = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 2, maxRootFields: 20, maxTokens: 1000, maxCost: 10_000, listFactor: 10 } }, app);
    const { emf } = await captured(() => g.post("{ a: versionVersion b: versionVersion c: versionVersion }"));
    expect(emf).toHaveLength(1);
    const line = emf[0] as EmfLine;
    expect(line).toMatchObject({ Service: "graphql", GraphQLRefused: 1, DynamoDBCalls: 0 });
    expect(dimensionSetsOf(line, "GraphQLRefused")).toEqual([""]);
    const tokens = await captured(() => g.post(`{ ${"versionVersion ".repeat(1001)} }`));
    expect(tokens.emf[0]).toMatchObject({ GraphQLRefused: 1 });
    // An accepted operation counts nothing.
    const accepted = await captured(() => g.post("{ a: versionVersion }"));
    expect(accepted.emf[0]).not.toHaveProperty("GraphQLRefused");
  });
});
