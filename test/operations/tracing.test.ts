import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { injectFaults, sdkError } from "../support/faults.ts";
import { newTraceRoot, parsePacket, startXrayDaemon } from "../support/xray-daemon.ts";

/**
 * The AWS SDK's calls as X-Ray subsegments (lib/store/aws-tracing.ts): a UDP socket on loopback
 * stands in for the X-Ray daemon, DynamoDB Local answers the calls.
 */

const ROOT = newTraceRoot();
const table = `tracing-${randomUUID()}`;
const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION });
let daemon: Awaited<ReturnType<typeof startXrayDaemon>>;
let documents: DynamoDBDocumentClient;
/** The trace header each attempt carried out, seen after the SDK built the request. */
const sentHeaders: (string | undefined)[] = [];

/** Runs `work` as one sampled invocation (test/support/xray-daemon.ts), the headers seen afresh. */
function packetsOf(count: number, work: (sampled: string, parent: string) => Promise<unknown>): Promise<string[]> {
  sentHeaders.length = 0;
  return daemon.invocation(count, work);
}

const envBefore = { TRACING: process.env.TRACING, _X_AMZN_TRACE_ID: process.env._X_AMZN_TRACE_ID };

beforeAll(async () => {
  daemon = await startXrayDaemon(ROOT);
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
  daemon.close();
  for (const [name, value] of Object.entries(envBefore)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

afterEach(() => {
  process.env.TRACING = "true";
});

describe("a sampled invocation's DynamoDB calls", () => {
  it("each become one subsegment under the invocation's segment, naming the call and nothing of its data", async () => {
    const pk = `key-${randomUUID()}`;
    const secret = `value-${randomUUID()}`;
    let parent = "";
    const packets = await packetsOf(3, async (_, invocationParent) => {
      parent = invocationParent;
      await documents.send(new PutCommand({ TableName: table, Item: { pk, sk: "a", body: secret } }));
      const got = await documents.send(new GetCommand({ TableName: table, Key: { pk, sk: "a" } }));
      expect(got.Item?.body).toBe(secret);
      await documents.send(new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk } }));
    });
    expect(packets).toHaveLength(3);
    for (const packet of packets) {
      expect(packet).not.toContain(pk);
      expect(packet).not.toContain(secret);
    }
    const segments = packets.map(parsePacket);
    expect(segments.map((s) => s.aws.operation).sort()).toEqual(["GetItem", "PutItem", "Query"]);
    for (const segment of segments) {
      expect(segment).toMatchObject({
        name: "DynamoDB",
        namespace: "aws",
        type: "subsegment",
        trace_id: ROOT,
        parent_id: parent,
        http: { response: { status: 200 } },
      });
      expect(segment.id).toMatch(/^[0-9a-f]{16}$/);
      expect(segment.aws).toMatchObject({ table_name: table, region: process.env.AWS_REGION, retries: 0 });
      expect(segment.aws.request_id).toEqual(expect.any(String));
      expect(segment.aws.request_id).not.toBe("");
      expect(segment.start_time).toBeLessThanOrEqual(segment.end_time);
      // Epoch seconds, as X-Ray reads them, not milliseconds.
      expect(segment.start_time).toBeGreaterThan(1e9);
      expect(segment.end_time).toBeLessThan(1e11);
      expect(segment.error ?? segment.fault ?? segment.throttle).toBeUndefined();
    }
    expect(new Set(segments.map((s) => s.id)).size).toBe(3);
    // Each request named its own subsegment as the parent of DynamoDB's node, as the X-Ray SDK does.
    expect(sentHeaders.sort()).toEqual(segments.map((s) => `Root=${ROOT};Parent=${s.id};Sampled=1`).sort());
  });

  it("marks a refused condition as a client error, naming the exception and not its message", async () => {
    const pk = `key-${randomUUID()}`;
    await documents.send(new PutCommand({ TableName: table, Item: { pk, sk: "a" } }));
    const [packet] = await packetsOf(1, async () => {
      const refused = documents.send(new PutCommand({ TableName: table, Item: { pk, sk: "a" }, ConditionExpression: "attribute_not_exists(pk)" }));
      await expect(refused).rejects.toMatchObject({ name: "ConditionalCheckFailedException" });
    });
    expect(packet).not.toContain(pk);
    expect(packet).not.toMatch(/conditional request failed/i);
    const segment = parsePacket(packet);
    expect(segment).toMatchObject({ error: true, aws: { operation: "PutItem", table_name: table }, http: { response: { status: 400 } } });
    expect(segment.fault).toBeUndefined();
    expect(segment.throttle).toBeUndefined();
    expect(segment.aws.request_id).toEqual(expect.any(String));
    expect(segment.cause?.exceptions).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{16}$/), type: "ConditionalCheckFailedException", remote: true }]);
  });
});

describe("retries", () => {
  it("are inside the call's one subsegment, counted", async () => {
    const client = createDocumentClient();
    const faults = injectFaults(client);
    // Throttled twice by fault injection (inside the SDK's retry loop), then DynamoDB Local answers.
    faults.add({ command: "GetItemCommand", times: 2, error: () => sdkError("ProvisionedThroughputExceededException", 400) });
    const packets = await packetsOf(1, () => client.send(new GetCommand({ TableName: table, Key: { pk: "absent", sk: "a" } })));
    client.destroy();
    expect(faults.attempts.GetItemCommand).toBe(3);
    expect(packets).toHaveLength(1);
    const segment = parsePacket(packets[0]);
    expect(segment).toMatchObject({ aws: { operation: "GetItem", retries: 2 }, http: { response: { status: 200 } } });
    expect(segment.error ?? segment.throttle ?? segment.fault).toBeUndefined();
  });
});

describe("nothing is sent", () => {
  const get = (client: DynamoDBDocumentClient) => client.send(new GetCommand({ TableName: table, Key: { pk: "absent", sk: "a" } }));

  it("for an unsampled invocation, or one without a trace header", async () => {
    const packets = await packetsOf(1, async (sampled) => {
      process.env._X_AMZN_TRACE_ID = sampled.replace("Sampled=1", "Sampled=0");
      await get(documents);
      delete process.env._X_AMZN_TRACE_ID;
      await get(documents);
      expect(sentHeaders).toEqual([undefined, undefined]);
      // The positive control: the same client, sampled again, reaches the daemon.
      process.env._X_AMZN_TRACE_ID = sampled;
      await get(documents);
    });
    expect(packets).toHaveLength(1);
    expect(parsePacket(packets[0]).aws.operation).toBe("GetItem");
  });

  it("by a client built while tracing is off, which carries no tracing middleware at all", async () => {
    delete process.env.TRACING;
    const untraced = createDocumentClient();
    process.env.TRACING = "true";
    expect(untraced.middlewareStack.identify().join(" ")).not.toMatch(/xrayTracing/);
    expect(documents.middlewareStack.identify().join(" ")).toMatch(/xrayTracing/);
    const packets = await packetsOf(1, async () => {
      await get(untraced);
      await documents.send(new QueryCommand({ TableName: table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "absent" } }));
    });
    untraced.destroy();
    expect(packets).toHaveLength(1);
    expect(parsePacket(packets[0]).aws.operation).toBe("Query");
  });
});
