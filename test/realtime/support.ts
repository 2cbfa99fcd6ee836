import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { MessageType } from "graphql-ws";
import { inject } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { DEFAULT_REALTIME_OPTIONS, type RealtimeOptions } from "../../lib/realtime/options.ts";
import { createRealtime, type Realtime } from "../../lib/realtime/realtime.ts";
import type { RealtimeRepositories } from "../../lib/realtime/store.ts";
import { connectionShape, realtimeTableNames, realtimeTables, subscriptionShape, userConnectionShape } from "../../lib/realtime/tables.ts";
import type { Target, Transport } from "../../lib/realtime/transport.ts";
import type { ConnectionAuthenticator } from "../../lib/realtime/auth.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";

export const ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/test";

/**
 * A client's first three steps over the protocol, as API Gateway hands them to the WebSocket
 * function: connect, `connection_init` (as `user` through the test-user payload, if given), then
 * `subscribe` to `query` under the subscription id `id`.
 */
export async function subscribeOver(realtime: Realtime, connectionId: string, query: string, options: { user?: string; id?: string } = {}): Promise<void> {
  await realtime.protocol.connect({
    connectionId,
    endpoint: ENDPOINT,
    connectedAt: Date.now(),
    headers: { "sec-websocket-protocol": "graphql-transport-ws" },
    cookies: [],
  });
  const frame = (message: unknown) =>
    realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify(message), receivedAt: Date.now(), requestId: connectionId });
  await frame({ type: MessageType.ConnectionInit, ...(options.user ? { payload: { testUser: options.user } } : {}) });
  await frame({ id: options.id ?? "s", type: MessageType.Subscribe, payload: { query } });
}

/** An API Gateway error as the SDK throws it: a name and an HTTP status. */
export function apiError(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

type Behaviour = (target: Target, data: string, signal?: AbortSignal) => Promise<void>;

/**
 * The one fake of these tests: the management API, for fault injection (latency, 410, throttling,
 * hanging). It records what reached each connection and how many posts were in flight at most.
 */
export class FakeTransport implements Transport {
  readonly posted = new Map<string, string[]>();
  readonly disconnected: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  attempts = 0;
  private readonly behaviours = new Map<string, Behaviour>();

  constructor(private readonly latencyMs = 0) {}

  /** Overrides what a post to this connection does (throw, hang, fail a few times). */
  on(connectionId: string, behaviour: Behaviour): this {
    this.behaviours.set(connectionId, behaviour);
    return this;
  }

  async post(target: Target, data: string, signal?: AbortSignal): Promise<void> {
    this.attempts++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const behaviour = this.behaviours.get(target.connectionId);
      if (behaviour) await behaviour(target, data, signal);
      else if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      this.posted.set(target.connectionId, [...(this.posted.get(target.connectionId) ?? []), data]);
    } finally {
      this.inFlight--;
    }
  }

  async disconnect(target: Target): Promise<void> {
    this.disconnected.push(target.connectionId);
  }

  /** Parsed frames posted to a connection. */
  messages(connectionId: string): Record<string, unknown>[] {
    return (this.posted.get(connectionId) ?? []).map((data) => JSON.parse(data) as Record<string, unknown>);
  }
}

export function memoryRepositories(): RealtimeRepositories {
  return {
    connections: new MemoryRepository(connectionShape),
    subscriptions: new MemoryRepository(subscriptionShape),
    userConnections: new MemoryRepository(userConnectionShape),
  };
}

let tables: Promise<void> | undefined;
const prefix = `realtime-${process.pid}-`;

/** The realtime tables in the run's DynamoDB Local, created once per test file. */
export async function dynamoRepositories(): Promise<RealtimeRepositories> {
  const endpoint = inject("dynamodbEndpoint");
  tables ??= (async () => {
    const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
    try {
      await ensureTables(admin, realtimeTables(prefix));
    } finally {
      admin.destroy();
    }
  })();
  await tables;
  const client = createDocumentClient(endpoint);
  const names = realtimeTableNames(prefix);
  return {
    connections: new DynamoRepository(client, names.connections, connectionShape),
    subscriptions: new DynamoRepository(client, names.subscriptions, subscriptionShape),
    userConnections: new DynamoRepository(client, names.userConnections, userConnectionShape),
  };
}

/** The names of the realtime tables `dynamoRepositories` creates. */
export function dynamoTableNames(): ReturnType<typeof realtimeTableNames> {
  return realtimeTableNames(prefix);
}

export function realtimeFor(
  app: Application,
  transport: Transport,
  repositories: RealtimeRepositories,
  options: Partial<RealtimeOptions> = {},
  auth?: ConnectionAuthenticator,
  now?: () => number,
): Realtime {
  return createRealtime(app, {
    repositories,
    transport,
    options: { ...DEFAULT_REALTIME_OPTIONS, ...options },
    ...(auth ? { auth } : {}),
    ...(now ? { now } : {}),
  });
}
