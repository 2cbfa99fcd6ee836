import type { MiddlewareObj } from "@middy/core";
import type { Context as LambdaContext } from "aws-lambda";
import { UnavailableError } from "../core/errors.ts";
import { ANSWER_RESERVE_MS } from "../core/invocation-deadline.ts";
import { invocationHandler, type EntryKind, type InvocationHandler } from "../core/invocation-handler.ts";
import type { Measured } from "../core/invocation-lifecycle.ts";
import { errorResponse } from "./errors.ts";
import { fromApiGateway, type ApiGatewayEvent, type HttpRequest } from "./request.ts";
import { toApiGateway, type HttpResponse } from "./response.ts";

export type HttpHandler = (request: HttpRequest, lambda: LambdaContext) => Promise<HttpResponse>;
type Result = ReturnType<typeof toApiGateway>;

/**
 * middy answers for the handler this long before Lambda's timeout: inside the reserve that the AWS
 * calls leave for answering (their deadline passes first), time enough to write the 503.
 */
const TIMEOUT_EARLY_MS = ANSWER_RESERVE_MS / 2;

/** The request as the handler parsed it, by event: the request line reads it instead of parsing again. */
const parsed = new WeakMap<ApiGatewayEvent, HttpRequest>();

const parsedOf = (event: ApiGatewayEvent): HttpRequest => parsed.get(event) ?? fromApiGateway(event);

/**
 * An HTTP request as an invocation: one line per request, its metrics per route and status class;
 * errors become answers (errors()) before the line is written.
 */
function httpInvocation(name: string): EntryKind<ApiGatewayEvent, Result> {
  return {
    service: name,
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
    use: [errors()],
    requestIdOf: (event) => event.requestContext?.requestId,
    // The route key, never the path: one metric per declared route, whatever clients send.
    outcome: (event, response) => ({ route: parsedOf(event).routeKey, status: response?.statusCode ?? 0 }),
    line: {
      message: "request",
      fields: (event, response, measured: Measured) => {
        const request = parsedOf(event);
        const body = response?.body;
        return {
          requestId: measured.requestId ?? request.requestId,
          method: request.method,
          path: request.path,
          function: name,
          route: request.routeKey,
          status: response?.statusCode ?? 0,
          durationMs: measured.durationMs,
          // What the request cost the database: the invocation's tally, which its metrics read too.
          dynamodbCalls: measured.dynamodbCalls,
          consumedCapacity: measured.consumedCapacity,
          itemsRead: measured.itemsRead,
          bytes: body === undefined ? 0 : Buffer.byteLength(body),
        };
      },
    },
  };
}

/**
 * Errors become our error body in this one place (never offline's 200 with an `errorMessage`,
 * never a stack to the client), before the invocation's close writes the request's line.
 */
function errors(): MiddlewareObj<ApiGatewayEvent, Result, Error, LambdaContext> {
  return {
    onError: (request) => {
      const http = parsedOf(request.event);
      // middy ends a request just before Lambda's deadline (a database throttled past the time
      // left): the client should retry, as with any other unavailability, not see a 500.
      const error = request.error?.name === "TimeoutError" ? new UnavailableError(2, "The request ran out of time, retry shortly") : request.error;
      request.response = toApiGateway(errorResponse(error, request.context?.awsRequestId ?? http.requestId), http);
    },
  };
}

/** An API Gateway handler (payload v1 or v2) around a handler of HttpRequest -> HttpResponse. */
export function httpHandler(name: string, handle: HttpHandler): InvocationHandler<ApiGatewayEvent, Result> {
  return invocationHandler(httpInvocation(name), async (event, lambda) => {
    const request = fromApiGateway(event);
    parsed.set(event, request);
    // Offline gives every request the same requestContext id; Lambda's own id is unique everywhere.
    if (lambda?.awsRequestId) request.requestId = lambda.awsRequestId;
    return toApiGateway(await handle(request, lambda), request);
  });
}
