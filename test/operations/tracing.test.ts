import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { invocationHandler, type InvocationHandler } from "../../lib/core/invocation-handler.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { injectFaults, sdkError } from "../support/faults.ts";
import { newTraceRoot, startOtlpReceiver, tracedInvocation, type ReceivedSpan } from "../support/otlp-receiver.ts";

/**
 * Tracing on OpenTelemetry (lib/core/tracing.ts): each sampled invocation's span under Lambda's
 * segment and its DynamoDB calls' spans under it, exported over OTLP/HTTP to a real receiver on
 * loopback standing in for X-Ray's OTLP endpoint; DynamoDB Local answers the calls.
 */

const ROOT = newTraceRoot();
const TRACE_ID = ROOT.slice(2).replace("-", "");
const table = `tracing-${randomUUID()}`;
const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION });
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let documents: DynamoDBDocumentClient;
/** The trace header each attempt carried out, seen after the SDK built the request. */
const sentHeaders: (string | undefined)[] = [];

const envBefore = { TRACING: process.env.TRACING, _X_AMZN_TRACE_ID: process.env._X_AMZN_TRACE_ID };

/** The spans of the invocation whose Lambda segment is `parent`: its own, then its calls'. */
function invocationSpans(parent: string): { invocation: ReceivedSpan; calls: ReceivedSpan[] } {
  const spans = receiver.spans().filter((s) => s.traceId === TRACE_ID);
  const invocation = spans.find((s) => s.parentSpanId === parent);
  if (!invocation) throw new Error(`no invocation span under ${parent}`);
  return { invocation, calls: spans.filter((s) => s.parentSpanId === invocation.spanId) };
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // As the template sets on every function of a stage deployed with `--param tracing=true`.
  process.env.TRACING = "true";
  await admin.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "S" },
      ],
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  documents = createDocumentClient();
  documents.middlewareStack.add(
    (next) => async (args) => {
      sentHeaders.push((args.request as { headers: Record<string, string> }).headers["X-Amzn-Trace-Id"]);
      return next(args);
    },
    { step: "finalizeRequest", priority: "low", name: "testTraceHeaderCapture" },
  );
});

afterAll(async () => {
  await admin.send(new DeleteTableCommand({ TableName: table }));
  admin.destroy();
  await receiver.close();
  for (const [name, value] of Object.entries(envBefore)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

afterEach(() => {
  process.env.TRACING = "true";
  receiver.answer.status = 200;
  sentHeaders.length = 0;
});

describe("a sampled invocation", () => {
  it("is a server span under Lambda's segment, each DynamoDB call a client span under it, exported signed before it answers", async () => {
    const pk = `key-${randomUUID()}`;
    const secret = `value-${randomUUID()}`;
    const exportsBefore = receiver.received.length;
    const parent = await tracedInvocation(
      ROOT,
      async () => {
        await documents.send(new PutCommand({ TableName: table, Item: { pk, sk: "a", body: secret } }));
        const got = await documents.send(new GetCommand({ TableName: table, Key: { pk, sk: "a" } }));
        expect(got.Item?.body).toBe(secret);
        await documents.send(new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk } }));
      },
      { route: "POST /posts", status: 201 },
    );
    // One export per invocation, already received when the handler answered: nothing waits on a timer.
    expect(receiver.received).toHaveLength(exportsBefore + 1);
    const sent = receiver.received.at(-1);
    expect(sent?.body).not.toContain(pk);
    expect(sent?.body).not.toContain(secret);
    // Signed as X-Ray's endpoint requires: SigV4 for the service `xray` in the function's region.
    expect(sent?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=[^/]+/\\d{8}/${process.env.AWS_REGION}/xray/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(sent?.headers["content-type"]).toBe("application/json");

    const { invocation, calls } = invocationSpans(parent);
    expect(invocation).toMatchObject({
      name: "POST /posts",
      kind: 2, // OTLP's SERVER
      attributes: { "faas.invocation_id": `request-${parent}`, "http.route": "POST /posts", "http.response.status_code": 201, "modelrest.service": "test" },
      status: { code: 0 },
      resource: { "cloud.provider": "aws", "cloud.platform": "aws_lambda" },
    });
    expect(invocation.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(calls.map((s) => s.attributes["rpc.method"]).sort()).toEqual(["GetItem", "PutItem", "Query"]);
    for (const call of calls) {
      expect(call).toMatchObject({
        name: `DynamoDB.${String(call.attributes["rpc.method"])}`,
        kind: 3, // OTLP's CLIENT
        status: { code: 0 },
        attributes: {
          "rpc.system": "aws-api",
          "rpc.service": "DynamoDB",
          "aws.dynamodb.table_names": [table],
          "cloud.region": process.env.AWS_REGION,
          "http.response.status_code": 200,
          "http.request.resend_count": 0,
          "aws.request_id": expect.stringMatching(/./),
        },
      });
      // Nanoseconds since the epoch, inside the invocation's own span.
      expect(BigInt(call.startTimeUnixNano)).toBeGreaterThan(10n ** 18n);
      expect(BigInt(call.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(invocation.startTimeUnixNano));
      expect(BigInt(call.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(invocation.endTimeUnixNano));
    }
    expect(new Set(calls.map((s) => s.spanId)).size).toBe(3);
    // Each request named its own span as the parent of DynamoDB's node, in X-Ray's header.
    expect(sentHeaders.sort()).toEqual(calls.map((s) => `Root=${ROOT};Parent=${s.spanId};Sampled=1`).sort());
  });

  it("marks a refused condition as an error, naming the exception and not its message", async () => {
    const pk = `key-${randomUUID()}`;
    await documents.send(new PutCommand({ TableName: table, Item: { pk, sk: "a" } }));
    const parent = await tracedInvocation(ROOT, async () => {
      const refused = documents.send(new PutCommand({ TableName: table, Item: { pk, sk: "a" }, ConditionExpression: "attribute_not_exists(pk)" }));
      await expect(refused).rejects.toMatchObject({ name: "ConditionalCheckFailedException" });
    });
    const body = receiver.received.at(-1)?.body ?? "";
    expect(body).not.toContain(pk);
    expect(body).not.toMatch(/conditional request failed/i);
    const [call] = invocationSpans(parent).calls;
    expect(call).toMatchObject({
      status: { code: 2 },
      attributes: { "rpc.method": "PutItem", "error.type": "ConditionalCheckFailedException", "http.response.status_code": 400 },
      events: [{ name: "exception", attributes: { "exception.type": "ConditionalCheckFailedException" } }],
    });
    expect(call?.attributes["aws.request_id"]).toEqual(expect.any(String));
  });

  it("that answers 5xx, or throws, is an error span", async () => {
    const failed = await tracedInvocation(ROOT, async () => {}, { route: "GET /posts", status: 503 });
    expect(invocationSpans(failed).invocation.status.code).toBe(2);
    const answered = await tracedInvocation(ROOT, async () => {}, { route: "GET /posts", status: 404 });
    expect(invocationSpans(answered).invocation.status.code).toBe(0);
  });
});

describe("faas.coldstart", () => {
  it("marks each function's first invocation and not its later ones, whatever another function ran before", async () => {
    // Two functions in one process, as the tests build them: each keeps its own cold start.
    const build = () => invocationHandler<unknown, undefined>({ service: "test", timeoutEarlyInMillis: 0 }, async () => undefined);
    const coldStartOf = async (handler: InvocationHandler<unknown, undefined>): Promise<unknown> => {
      const parent = randomBytes(8).toString("hex");
      process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${parent};Sampled=1`;
      await handler({}, { awsRequestId: `request-${parent}` });
      return invocationSpans(parent).invocation.attributes["faas.coldstart"];
    };
    const first = build();
    const second = build();
    expect([await coldStartOf(first), await coldStartOf(first), await coldStartOf(second), await coldStartOf(first)]).toEqual([true, false, true, false]);
  });
});

describe("retries", () => {
  it("are inside the call's one span, counted", async () => {
    const client = createDocumentClient();
    const faults = injectFaults(client);
    // Throttled twice by fault injection (inside the SDK's retry loop), then DynamoDB Local answers.
    faults.add({ command: "GetItemCommand", times: 2, error: () => sdkError("ProvisionedThroughputExceededException", 400) });
    const parent = await tracedInvocation(ROOT, () => client.send(new GetCommand({ TableName: table, Key: { pk: "absent", sk: "a" } })));
    client.destroy();
    expect(faults.attempts.GetItemCommand).toBe(3);
    const { calls } = invocationSpans(parent);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      status: { code: 0 },
      attributes: { "rpc.method": "GetItem", "http.request.resend_count": 2, "http.response.status_code": 200 },
    });
  });
});

describe("nothing is sent", () => {
  const get = (client: DynamoDBDocumentClient) => client.send(new GetCommand({ TableName: table, Key: { pk: "absent", sk: "a" } }));

  it("for an unsampled invocation, nor for a call outside any invocation", async () => {
    const before = receiver.received.length;
    await tracedInvocation(ROOT, () => get(documents), {}, false);
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=53995c3f42cd8ad8;Sampled=1`;
    await get(documents);
    expect(sentHeaders).toEqual([undefined, undefined]);
    expect(receiver.received).toHaveLength(before);
    // The positive control: the same client in a sampled invocation is traced.
    const parent = await tracedInvocation(ROOT, () => get(documents));
    expect(invocationSpans(parent).calls).toHaveLength(1);
  });

  it("by a client built while tracing is off, which carries no tracing middleware at all", async () => {
    delete process.env.TRACING;
    const untraced = createDocumentClient();
    process.env.TRACING = "true";
    expect(untraced.middlewareStack.identify().join(" ")).not.toMatch(/otelTracing/);
    expect(documents.middlewareStack.identify().join(" ")).toMatch(/otelTracing/);
    const parent = await tracedInvocation(ROOT, async () => {
      await get(untraced);
      await documents.send(new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "absent" } }));
    });
    untraced.destroy();
    expect(invocationSpans(parent).calls.map((s) => s.attributes["rpc.method"])).toEqual(["Query"]);
  });
});

describe("an export X-Ray refuses", () => {
  it("loses the trace, not the request", async () => {
    receiver.answer.status = 403;
    let answered = false;
    await tracedInvocation(ROOT, async () => {
      await get();
      answered = true;
    });
    expect(answered).toBe(true);
    // The refused export was sent (and refused): the next invocation's spans go in one of their own.
    receiver.answer.status = 200;
    const parent = await tracedInvocation(ROOT, () => get());
    expect(invocationSpans(parent).calls).toHaveLength(1);
  });
  const get = () => documents.send(new GetCommand({ TableName: table, Key: { pk: "absent", sk: "a" } }));
});
