import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { streamHandler, websocketHandler, type WebSocketEvent } from "../../lib/realtime/handler.ts";
import { lifecycleEventsOf, tableOfStreamArn } from "../../lib/realtime/stream-events.ts";
import { managementEndpoint } from "../../lib/realtime/transport.ts";
import { realtimeTables, realtimeTtl } from "../../lib/realtime/tables.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { FakeTransport, memoryRepositories, realtimeFor } from "./support.ts";

const app = blog();
const transport = new FakeTransport();
const realtime = realtimeFor(app, transport, memoryRepositories());
const handler = websocketHandler(async () => realtime);
const AWS_DOMAIN = "abc123.execute-api.eu-west-1.amazonaws.com";

function event(routeKey: string, connectionId: string, extra: Partial<WebSocketEvent> = {}): WebSocketEvent {
  const now = Date.now();
  return {
    requestContext: { routeKey, connectionId, connectedAt: now, requestTimeEpoch: now, domainName: AWS_DOMAIN, stage: "prod", apiId: "abc123" },
    ...extra,
  };
}

describe("the WebSocket Lambda", () => {
  it("answers $connect with Sec-WebSocket-Protocol when the client offers graphql-transport-ws", async () => {
    const response = await handler(event("$connect", "h1", { headers: { Host: AWS_DOMAIN, "Sec-WebSocket-Protocol": "graphql-transport-ws" } }));
    expect(response).toEqual({ statusCode: 200, headers: { "Sec-WebSocket-Protocol": "graphql-transport-ws" } });
    expect(await realtime.store.getConnection("h1")).toMatchObject({ endpoint: `https://${AWS_DOMAIN}/prod`, state: "pending" });
  });

  it("refuses a handshake without the subprotocol", async () => {
    const response = await handler(event("$connect", "h2", { headers: { Host: AWS_DOMAIN } }));
    expect(response.statusCode).toBe(400);
    expect(response.headers).toBeUndefined();
    expect(await realtime.store.getConnection("h2")).toBeUndefined();
  });

  it("routes $default frames and $disconnect, and never throws", async () => {
    await handler(event("$connect", "h3", { headers: { "sec-websocket-protocol": "graphql-transport-ws" } }));
    expect(await handler(event("$default", "h3", { body: JSON.stringify({ type: "connection_init" }) }))).toEqual({ statusCode: 200 });
    expect(transport.messages("h3")).toEqual([{ type: "connection_ack" }]);
    expect(await handler(event("$disconnect", "h3"))).toEqual({ statusCode: 200 });
    expect(await realtime.store.getConnection("h3")).toBeUndefined();
    const broken = websocketHandler(async () => Promise.reject(new Error("no table")));
    expect(await broken(event("$default", "h4", { body: "{}" }))).toEqual({ statusCode: 500 });
  });

  it("addresses the management API offline, on the API's domain, or through the API id behind a custom domain", () => {
    expect(managementEndpoint({ domainName: "localhost", stage: "local" }, { IS_OFFLINE: "true" })).toBe("http://127.0.0.1:3001");
    // npm start on other ports hands the functions its WebSocket port; offline's "null" for an unset param is no port.
    expect(managementEndpoint({ domainName: "localhost", stage: "local" }, { IS_OFFLINE: "true", OFFLINE_WEBSOCKET_PORT: "4101" })).toBe(
      "http://127.0.0.1:4101",
    );
    expect(managementEndpoint({ domainName: "localhost", stage: "local" }, { IS_OFFLINE: "true", OFFLINE_WEBSOCKET_PORT: "null" })).toBe(
      "http://127.0.0.1:3001",
    );
    expect(managementEndpoint({ domainName: AWS_DOMAIN, stage: "prod" }, {})).toBe(`https://${AWS_DOMAIN}/prod`);
    expect(managementEndpoint({ domainName: "ws.example.com", stage: "prod", apiId: "abc123" }, { AWS_REGION: "eu-west-1" })).toBe(
      `https://${AWS_DOMAIN}/prod`,
    );
    expect(managementEndpoint({ domainName: "x", stage: "y" }, { WEBSOCKET_MANAGEMENT_ENDPOINT: "http://elsewhere" })).toBe("http://elsewhere");
  });
});

function record(eventName: "INSERT" | "MODIFY" | "REMOVE", arn: string, item: Record<string, unknown>): DynamoDBRecord {
  const image = marshall(item, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord["dynamodb"]>["NewImage"];
  return { eventName, eventSourceARN: arn, dynamodb: eventName === "REMOVE" ? { OldImage: image } : { NewImage: image } };
}

describe("DynamoDB stream records as lifecycle events", () => {
  const stored = { ...post("s1"), author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 2 };
  const awsArn = "arn:aws:dynamodb:eu-west-1:123456789012:table/blog-prod-Post/stream/2026-01-01T00:00:00.000";
  const offlineArn = "arn:aws:dynamodb:us-east-1:undefined:blog-prod-Post";

  it("reads the table from AWS's stream ARN and from the offline plugin's", () => {
    expect(tableOfStreamArn(awsArn)).toBe("blog-prod-Post");
    expect(tableOfStreamArn(offlineArn)).toBe("blog-prod-Post");
  });

  it("maps INSERT, MODIFY and REMOVE to Created, Updated and Deleted with the item and its key", () => {
    const events = lifecycleEventsOf(app, "blog-prod-", [
      record("INSERT", awsArn, stored),
      record("MODIFY", offlineArn, { ...stored, title: "Changed" }),
      record("REMOVE", awsArn, stored),
      record("INSERT", "arn:aws:dynamodb:eu-west-1:1:table/blog-prod-ws-connections/stream/x", { connectionId: "c" }),
      record("INSERT", "arn:aws:dynamodb:eu-west-1:1:table/other-Post/stream/x", stored),
    ]);
    expect(events.map((e) => [e.name, e.kind, e.key])).toEqual([
      ["Post.Created", "Created", { slug: "s1" }],
      ["Post.Updated", "Updated", { slug: "s1" }],
      ["Post.Deleted", "Deleted", { slug: "s1" }],
    ]);
    expect(events[1]?.record).toMatchObject({ title: "Changed", __version: 2 });
  });

  it("delivers stream records to subscribers in order", async () => {
    const streamed = blog();
    const fake = new FakeTransport();
    const rt = realtimeFor(streamed, fake, memoryRepositories());
    await rt.protocol.connect({
      connectionId: "w",
      endpoint: "http://x",
      connectedAt: Date.now(),
      headers: { "sec-websocket-protocol": "graphql-transport-ws" },
      cookies: [],
    });
    for (const frame of [{ type: "connection_init" }, { id: "1", type: "subscribe", payload: { query: "subscription { Posts { type post { title } } }" } }]) {
      await rt.protocol.message({ connectionId: "w", endpoint: "http://x", body: JSON.stringify(frame), receivedAt: Date.now(), requestId: "r" });
    }
    const consume = streamHandler(
      streamed,
      async () => rt,
      () => "blog-prod-",
    );
    const batch: DynamoDBStreamEvent = {
      Records: [record("INSERT", awsArn, stored), record("MODIFY", awsArn, { ...stored, title: "Second" }), record("REMOVE", awsArn, stored)],
    };
    await consume(batch);
    const nexts = fake
      .messages("w")
      .filter((m) => m.type === "next")
      .map((m) => (m.payload as { data: unknown }).data);
    expect(nexts).toEqual([
      { Posts: { type: "CREATED", post: { title: "Title of s1" } } },
      { Posts: { type: "UPDATED", post: { title: "Second" } } },
      { Posts: { type: "DELETED", post: { title: "Title of s1" } } },
    ]);
  });
});

describe("realtime tables", () => {
  it("declares the three tables with the topic index, and their TTL attribute apart", () => {
    const [connections, subscriptions, userConnections] = realtimeTables("blog-prod-");
    expect(connections?.TableName).toBe("blog-prod-ws-connections");
    expect(subscriptions?.TableName).toBe("blog-prod-ws-subscriptions");
    expect(subscriptions?.GlobalSecondaryIndexes?.[0]?.IndexName).toBe("by_topic");
    // A user's places are one partition of the base table: counted with a consistent read, no index.
    expect(userConnections?.TableName).toBe("blog-prod-ws-user-connections");
    expect(userConnections?.KeySchema).toEqual([{ AttributeName: "userId", KeyType: "HASH" }]);
    expect(userConnections?.GlobalSecondaryIndexes).toBeUndefined();
    expect(realtimeTtl).toEqual(["ws-connections", "ws-subscriptions", "ws-user-connections"].map((suffix) => ({ suffix, attribute: "expiresAt" })));
  });
});
