import { ApiGatewayManagementApiClient, DeleteConnectionCommand, PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { LOCAL_HOST, offlinePort } from "../http/offline.ts";
import { MANAGEMENT_API_BUDGET, clientBudget } from "../store/aws-budgets.ts";
import { traceAwsCalls } from "../store/aws-tracing.ts";

/** One socket, addressed through the management API of the API it belongs to. */
export interface Target {
  endpoint: string;
  connectionId: string;
}

/**
 * What the WebSocket face can do to a socket from a stateless Lambda: post a frame, or delete the
 * connection. API Gateway's DeleteConnection carries no close code or reason.
 */
export interface Transport {
  post(target: Target, data: string, signal?: AbortSignal): Promise<void>;
  disconnect(target: Target): Promise<void>;
}

export interface EndpointContext {
  domainName?: string;
  stage?: string;
  apiId?: string;
}

/**
 * The management API endpoint for a connection's API. Offline serves it on its WebSocket port
 * (its `domainName` is `localhost` and stage `local`, which would lead nowhere). A custom domain
 * does not serve `@connections`, so outside `*.amazonaws.com` the API's own host is used.
 */
export function managementEndpoint(context: EndpointContext, env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEBSOCKET_MANAGEMENT_ENDPOINT) return env.WEBSOCKET_MANAGEMENT_ENDPOINT;
  if (env.IS_OFFLINE === "true") return `http://${LOCAL_HOST}:${offlinePort("websocket", env)}`;
  const { domainName, stage, apiId } = context;
  if (!stage) throw new Error("the WebSocket request context has no stage");
  if (domainName?.endsWith(".amazonaws.com")) return `https://${domainName}/${stage}`;
  const region = env.AWS_REGION;
  if (apiId && region) return `https://${apiId}.execute-api.${region}.amazonaws.com/${stage}`;
  if (domainName) return `https://${domainName}/${stage}`;
  throw new Error("the WebSocket request context names no domain");
}

export type PostFailure = "gone" | "throttled" | "other";

function statusOf(error: unknown): number | undefined {
  const meta = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof meta?.httpStatusCode === "number" ? meta.httpStatusCode : undefined;
}

const THROTTLING = new Set(["LimitExceededException", "ThrottlingException", "TooManyRequestsException"]);

export function classifyPostError(error: unknown): PostFailure {
  const name = error instanceof Error ? error.name : "";
  const status = statusOf(error);
  if (name === "GoneException" || status === 410) return "gone";
  if (THROTTLING.has(name) || status === 429) return "throttled";
  return "other";
}

/** The real transport: one management client per endpoint, reused across invocations. */
export class ApiGatewayTransport implements Transport {
  private readonly clients = new Map<string, ApiGatewayManagementApiClient>();

  private client(endpoint: string): ApiGatewayManagementApiClient {
    let client = this.clients.get(endpoint);
    if (!client) {
      // Retries are ours (fan-out retries throttling only, within a per-post timeout): one attempt.
      client = new ApiGatewayManagementApiClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1", ...clientBudget(MANAGEMENT_API_BUDGET) });
      traceAwsCalls(client);
      this.clients.set(endpoint, client);
    }
    return client;
  }

  async post(target: Target, data: string, signal?: AbortSignal): Promise<void> {
    const command = new PostToConnectionCommand({ ConnectionId: target.connectionId, Data: new TextEncoder().encode(data) });
    await this.client(target.endpoint).send(command, signal ? { abortSignal: signal } : {});
  }

  async disconnect(target: Target): Promise<void> {
    try {
      await this.client(target.endpoint).send(new DeleteConnectionCommand({ ConnectionId: target.connectionId }));
    } catch (error) {
      if (classifyPostError(error) !== "gone") throw error;
    }
  }
}
