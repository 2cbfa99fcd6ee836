import type { DynamoDBStreamEvent } from "aws-lambda";
import type { Application } from "../core/application.ts";
import { errorFields, log } from "../core/log.ts";
import type { ConnectResponse } from "./protocol.ts";
import type { Realtime } from "./realtime.ts";
import { lifecycleEventsOf } from "./stream-events.ts";
import { managementEndpoint } from "./transport.ts";

/** The parts of API Gateway's WebSocket event we read (`$connect` adds the handshake's headers). */
export interface WebSocketEvent {
  requestContext: {
    routeKey: string;
    connectionId: string;
    connectedAt?: number;
    requestTimeEpoch?: number;
    requestId?: string;
    domainName?: string;
    stage?: string;
    apiId?: string;
  };
  headers?: Record<string, string | undefined>;
  body?: string | null;
  isBase64Encoded?: boolean;
}

function lowerCase(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

function bodyOf(event: WebSocketEvent): string | undefined {
  if (event.body === null || event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
}

/**
 * `$connect`, `$disconnect` and `$default` of the WebSocket API in one function. It answers every
 * route itself, never by throwing: offline would forward a thrown error to the client as a
 * non-protocol frame, and API Gateway as a failed handshake.
 */
export function websocketHandler(realtime: () => Promise<Realtime>) {
  return async (event: WebSocketEvent): Promise<ConnectResponse> => {
    const { routeKey, connectionId } = event.requestContext;
    const now = Date.now();
    try {
      const { protocol } = await realtime();
      if (routeKey === "$connect") {
        const headers = lowerCase(event.headers);
        return await protocol.connect({
          connectionId,
          endpoint: managementEndpoint(event.requestContext),
          // graphql-ws starts the init timer when the socket opens, i.e. once $connect answers:
          // API Gateway's `connectedAt` precedes this Lambda's cold start.
          connectedAt: now,
          headers,
          cookies: headers.cookie ? headers.cookie.split(/;\s*/) : [],
        });
      }
      if (routeKey === "$disconnect") {
        await protocol.disconnect(connectionId);
        return { statusCode: 200 };
      }
      const outcome = await protocol.message({
        connectionId,
        endpoint: managementEndpoint(event.requestContext),
        body: bodyOf(event),
        receivedAt: event.requestContext.requestTimeEpoch ?? now,
        requestId: event.requestContext.requestId ?? connectionId,
      });
      if (outcome.closed) log.info("WebSocket connection deleted", { connectionId, closeCode: outcome.closed.code, reason: outcome.closed.reason });
      return { statusCode: 200 };
    } catch (error) {
      log.error("WebSocket route failed", { routeKey, connectionId, ...errorFields(error) });
      return { statusCode: 500 };
    }
  };
}

/**
 * The DynamoDB stream consumer: records in stream order, one event at a time, so a subscriber
 * sees one record's changes in the order they were made. A failure to read subscriptions fails
 * the batch (the stream retries it: delivery is at least once); a failed post never does.
 */
export function streamHandler(app: Application, realtime: () => Promise<Realtime>, prefix: () => string) {
  return async (event: DynamoDBStreamEvent): Promise<void> => {
    const { fanout } = await realtime();
    for (const lifecycle of lifecycleEventsOf(app, prefix(), event.Records)) {
      const report = await fanout.deliver(lifecycle);
      if (report.subscriptions > 0) log.info("subscription fan-out", { event: lifecycle.name, ...report });
    }
  };
}
