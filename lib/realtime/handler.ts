import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import type { Application } from "../core/application.ts";
import { UnavailableError } from "../core/errors.ts";
import { invocationHandler } from "../core/invocation-handler.ts";
import { errorFields, log } from "../core/log.ts";
import { countEvent } from "../core/metrics.ts";
import type { ConnectResponse } from "./protocol.ts";
import type { Realtime } from "./realtime.ts";
import { countDeliveries } from "./delivery-report.ts";
import { deliverStreamEvent } from "./stream-dispatch.ts";
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

/**
 * middy's own early timeout stays off: these functions answer by themselves, and Lambda's timeout
 * ends a batch that ran out of time (the stream then retries it).
 */
const NO_EARLY_TIMEOUT = 0;

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
  const answer = routeAnswer(realtime);
  return invocationHandler<WebSocketEvent, ConnectResponse>(
    {
      service: "ws",
      timeoutEarlyInMillis: NO_EARLY_TIMEOUT,
      requestIdOf: (event) => event.requestContext.requestId,
      // The WebSocket routes are requests too: per route and status class, as the HTTP ones.
      outcome: (event, response) => ({ route: event.requestContext.routeKey, status: response?.statusCode ?? 500 }),
    },
    async (event) => {
      const response = await answer(event);
      if (response.statusCode === 200 && event.requestContext.routeKey === "$connect") countEvent("WebSocketConnections");
      if (event.requestContext.routeKey === "$disconnect") countEvent("WebSocketDisconnections");
      return response;
    },
  );
}

function routeAnswer(realtime: () => Promise<Realtime>) {
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
      // A frame that failed on our side was answered over the protocol (an `error` for its id, or
      // a close): the route itself succeeded, and API Gateway has nothing to add.
      return { statusCode: 200 };
    } catch (error) {
      log.error("WebSocket route failed", { routeKey, connectionId, ...errorFields(error) });
      // Out of time or out of reach (the database): the client may retry, as with HTTP's 503.
      return { statusCode: error instanceof UnavailableError ? 503 : 500 };
    }
  };
}

export interface StreamHandlerOptions {
  /**
   * Throw instead of reporting the failed record: `npm start`'s stream plugin ignores
   * `batchItemFailures` (it would move past the record, which is then never delivered) but retries
   * a batch whose handler threw. The records before the failed one are planned again, and the
   * in-process fan-out queue drops their shares as re-sent (same stream sequence, same
   * deduplication id), so nothing is delivered twice.
   */
  failWholeBatch?: boolean;
}

/**
 * The DynamoDB stream consumer: records in stream order, one event at a time, so a subscriber
 * sees one record's changes in the order they were made. When a record cannot be fanned out (the
 * subscriptions cannot be read), the handler stops there and reports that record as the batch's
 * first failure (`ReportBatchItemFailures`): the stream retries from it, so the records before it
 * are not delivered twice and none after it is skipped; once the retries are spent the batch goes
 * to the failure queue (lib/realtime/serverless.ts). A failed post to one connection never fails
 * the batch.
 */
export function streamHandler(app: Application, realtime: () => Promise<Realtime>, prefix: () => string, options: StreamHandlerOptions = {}) {
  const consume = streamConsumer(app, realtime, prefix);
  return invocationHandler<DynamoDBStreamEvent, DynamoDBBatchResponse>({ service: "stream", timeoutEarlyInMillis: NO_EARLY_TIMEOUT }, async (event) => {
    countEvent("StreamRecords", event.Records.length);
    // How far behind the writes this batch runs: its oldest record's age when it arrives.
    const oldest = Math.min(...event.Records.map((r) => r.dynamodb?.ApproximateCreationDateTime ?? Number.POSITIVE_INFINITY));
    if (Number.isFinite(oldest)) countEvent("StreamBatchAge", Math.max(0, Date.now() - oldest * 1000));
    try {
      const response = await consume(event);
      if (response.batchItemFailures.length > 0) {
        countEvent("StreamFailures");
        if (options.failWholeBatch) throw new Error(`stream record ${response.batchItemFailures[0]?.itemIdentifier} not delivered: the batch is retried`);
      }
      return response;
    } catch (error) {
      countEvent("StreamFailures");
      throw error;
    }
  });
}

function streamConsumer(app: Application, realtime: () => Promise<Realtime>, prefix: () => string) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const live = await realtime();
    for (const record of event.Records) {
      try {
        for (const lifecycle of lifecycleEventsOf(app, prefix(), [record])) {
          // The write's time, as the stream gives it (seconds in AWS): the deliveries' age is counted from it.
          const created = record.dynamodb?.ApproximateCreationDateTime;
          const report = await deliverStreamEvent(live, lifecycle, record.dynamodb?.SequenceNumber, created === undefined ? undefined : created * 1000);
          countDeliveries(report);
          if (report.subscriptions > 0) log.info("subscription fan-out", { event: lifecycle.name, ...report });
        }
      } catch (error) {
        const itemIdentifier = record.dynamodb?.SequenceNumber ?? "";
        log.error("stream record not delivered: the stream retries from it", { itemIdentifier, eventSourceARN: record.eventSourceARN, ...errorFields(error) });
        return { batchItemFailures: [{ itemIdentifier }] };
      }
    }
    return { batchItemFailures: [] };
  };
}
