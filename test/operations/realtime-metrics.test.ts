import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord } from "aws-lambda";
import { beforeAll, describe, expect, it } from "vitest";
import { streamHandler, websocketHandler, type WebSocketEvent } from "../../lib/realtime/handler.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { emfLinesOf } from "../support/emf.ts";
import { withEnvironment } from "../support/offline-env.ts";
import { FakeTransport, memoryRepositories, realtimeFor } from "../realtime/support.ts";

// Metric lines to stdout, as in Lambda (vitest.config.ts sends them nowhere), to read them: set
// before the handlers are built (each reads it as it is built), put back after the file.
withEnvironment({ METRICS_FILE: "" });

const app = blog();
const transport = new FakeTransport();
const realtime = realtimeFor(app, transport, memoryRepositories());
let ws: ReturnType<typeof websocketHandler>;
let stream: ReturnType<typeof streamHandler>;
beforeAll(() => {
  ws = websocketHandler(async () => realtime);
  stream = streamHandler(
    app,
    async () => realtime,
    () => "blog-prod-",
  );
});
const ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/blog-prod-Post/stream/2026-01-01T00:00:00.000";

function event(routeKey: string, connectionId: string, extra: Partial<WebSocketEvent> = {}): WebSocketEvent {
  return { requestContext: { routeKey, connectionId, domainName: "abc.execute-api.eu-west-1.amazonaws.com", stage: "prod", apiId: "abc" }, ...extra };
}

function inserted(slug: string, ageMs: number): DynamoDBRecord {
  const item = { ...post(slug), author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 };
  const image = marshall(item, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord["dynamodb"]>["NewImage"];
  return { eventName: "INSERT", eventSourceARN: ARN, dynamodb: { NewImage: image, ApproximateCreationDateTime: (Date.now() - ageMs) / 1000 } };
}

async function subscribe(connectionId: string): Promise<void> {
  await ws(event("$connect", connectionId, { headers: { "sec-websocket-protocol": "graphql-transport-ws" } }));
  await ws(event("$default", connectionId, { body: JSON.stringify({ type: "connection_init" }) }));
  await ws(event("$default", connectionId, { body: JSON.stringify({ id: "1", type: "subscribe", payload: { query: "subscription { Posts { type } }" } }) }));
}

describe("WebSocket and stream metrics", () => {
  it("counts accepted connections and stored subscriptions on their routes' lines", async () => {
    const lines = await emfLinesOf(() => subscribe("m1"));
    expect(lines.map((l) => [l.Service, l.Route, l.StatusClass])).toEqual([
      ["ws", "$connect", "2xx"],
      ["ws", "$default", "2xx"],
      ["ws", "$default", "2xx"],
    ]);
    expect(lines[0]).toMatchObject({ WebSocketConnections: 1 });
    expect(lines[2]).toMatchObject({ Subscriptions: 1 });
    expect(lines[1]).not.toHaveProperty("Subscriptions");
    const refused = await emfLinesOf(() => ws(event("$connect", "m0", { headers: {} })));
    expect(refused[0]).toMatchObject({ StatusClass: "4xx" });
    expect(refused[0]).not.toHaveProperty("WebSocketConnections");
  });

  it("counts a batch's records, its age, its deliveries and the gone connections it found", async () => {
    await subscribe("m2");
    transport.on("m2", async () => {
      throw Object.assign(new Error("gone"), { name: "GoneException", $metadata: { httpStatusCode: 410 } });
    });
    const [line] = await emfLinesOf(() => stream({ Records: [inserted("a1", 60_000), inserted("a2", 1_000)] }));
    // m1 (from the test before) receives both events; m2 is gone at the first and removed.
    expect(line).toMatchObject({ Service: "stream", Invocations: 1, StreamRecords: 2, Deliveries: 2, StaleConnections: 1 });
    expect(line?.StreamBatchAge).toBeGreaterThanOrEqual(60_000);
    expect(line).not.toHaveProperty("StreamFailures");
  });
});
