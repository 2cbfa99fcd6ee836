import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { MessageType } from "graphql-ws";
import { inject } from "vitest";
import type { LifecycleEvent } from "../../lib/core/events.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { fanoutWorkerHandler } from "../../lib/realtime/fanout-handler.ts";
import { DEFAULT_FANOUT_OPTIONS } from "../../lib/realtime/fanout-options.ts";
import { InProcessFanoutQueue } from "../../lib/realtime/local-queue.ts";
import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import type { DocumentReference } from "../../lib/realtime/pack-references.ts";
import { dynamoPackTable } from "../../lib/realtime/pack-table.ts";
import { createRealtime, type Realtime } from "../../lib/realtime/realtime.ts";
import { connectionShape, realtimeTableNames, realtimeTables, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { FakeTransport } from "./support.ts";

// The topic packs' tests (pack-safety.test.ts, pack-buckets.test.ts): the fan-out queue's path over
// fresh realtime tables in DynamoDB Local, the reference function injectable to force collisions.

const users = connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } });
export const ATTACKER = `subscription { Posts(query: "status = 'published'") { type key post { slug title content } } }`;
export const VICTIM = `subscription { Posts(query: "title = 'no post has this title'") { type key } }`;
export const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key } }`;
export const PACKS = "\u0000pack:Post";
export const DOCUMENTS = "\u0000doc:Post";
let tablesMade = 0;

export interface Packed {
  realtime: Realtime;
  transport: FakeTransport;
  client: ReturnType<typeof createDocumentClient>;
  table: string;
  /** Another instance over the same tables (a cold worker: nothing kept). */
  other(): Realtime;
}

export async function packed(documentReference?: DocumentReference): Promise<Packed> {
  const endpoint = inject("dynamodbEndpoint");
  const prefix = `packsafe-${process.pid}-${++tablesMade}-`;
  const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  try {
    await ensureTables(admin, realtimeTables(prefix));
  } finally {
    admin.destroy();
  }
  const client = createDocumentClient(endpoint);
  const names = realtimeTableNames(prefix);
  const transport = new FakeTransport();
  const build = () => {
    const subscriptions = new DynamoRepository(client, names.subscriptions, subscriptionShape);
    const queue = new InProcessFanoutQueue({ workers: 4, maxReceives: 3, visibilityTimeoutMs: 20 });
    const realtime = createRealtime(blog(), {
      repositories: {
        connections: new DynamoRepository(client, names.connections, connectionShape),
        subscriptions,
        userConnections: new DynamoRepository(client, names.userConnections, userConnectionShape),
        topicMarkers: subscriptions,
        topicPacks: dynamoPackTable(client, names.subscriptions),
      },
      transport,
      auth: users,
      options: { ...DEFAULT_REALTIME_OPTIONS, maxConnectionsPerUser: 100 },
      fanoutQueue: queue,
      fanoutOptions: DEFAULT_FANOUT_OPTIONS,
      ...(documentReference ? { documentReference } : {}),
    });
    queue.attach(fanoutWorkerHandler(async () => realtime));
    return realtime;
  };
  return { realtime: build(), transport, client, table: names.subscriptions, other: build };
}

export function created(slug: string): LifecycleEvent {
  const record = {
    ...post(slug),
    title: "secret title",
    content: "secret content",
    author: ALICE,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    __version: 1,
  };
  return { name: "Post.Created", model: "Post", kind: "Created", key: { slug }, record };
}

export function nexts(transport: FakeTransport, connectionId: string): { id: unknown; payload: unknown }[] {
  return transport
    .messages(connectionId)
    .filter((m) => m.type === MessageType.Next)
    .map((m) => ({ id: m.id, payload: m.payload }));
}

export function errors(transport: FakeTransport, connectionId: string): unknown[] {
  return transport.messages(connectionId).filter((m) => m.type === MessageType.Error);
}

export async function packItems(s: Packed): Promise<Record<string, unknown>[]> {
  const result = await s.client.send(
    new QueryCommand({ TableName: s.table, KeyConditionExpression: "connectionId = :p", ExpressionAttributeValues: { ":p": PACKS }, ConsistentRead: true }),
  );
  return result.Items ?? [];
}

/** An item's size as DynamoDB counts it: every attribute's name and value, in UTF-8 bytes. */
export function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(String(value)), 0);
}
