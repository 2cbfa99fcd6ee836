import middy, { type MiddlewareObj } from "@middy/core";
import { UnavailableError } from "../core/errors.ts";
import { ANSWER_RESERVE_MS, enterInvocation, leaveInvocation } from "../core/invocation-deadline.ts";
import type { Context as LambdaContext } from "aws-lambda";
import { log, logs, setLogCorrelation } from "../core/log.ts";
import { finishInvocation, invocationCost, metricsForLogLine, startInvocation, type Finished } from "../core/metrics.ts";
import { errorResponse } from "./errors.ts";
import { fromApiGateway, type ApiGatewayEvent, type HttpRequest } from "./request.ts";
import { toApiGateway, type HttpResponse } from "./response.ts";

export type HttpHandler = (request: HttpRequest, lambda: LambdaContext) => Promise<HttpResponse>;
type Result = ReturnType<typeof toApiGateway>;
type Internal = { started: number; left?: true };

/**
 * middy answers for the handler this long before Lambda's timeout: inside the reserve that the AWS
 * calls leave for answering (their deadline passes first), time enough to write the 503.
 */
const TIMEOUT_EARLY_MS = ANSWER_RESERVE_MS / 2;

/** The request as the handler parsed it, by event: the access log reads it instead of parsing again. */
const parsed = new WeakMap<ApiGatewayEvent, HttpRequest>();

function accessLog(name: string, event: ApiGatewayEvent, lambda: LambdaContext | undefined, status: number, started: number | undefined, body?: string): void {
  const request = parsed.get(event) ?? fromApiGateway(event);
  const ended = performance.now();
  const durationMs = started === undefined ? 0 : Math.round((ended - started) * 100) / 100;
  const requestId = lambda?.awsRequestId ?? request.requestId;
  // The route key, never the path: one metric per declared route, whatever clients send.
  const done: Finished = { service: name, route: request.routeKey, status, latencyMs: durationMs, requestId, endedAt: ended };
  // In Lambda the line carries the invocation's metrics: one line per request, not two.
  const carried = log.info("request", {
    requestId,
    method: request.method,
    path: request.path,
    function: name,
    route: request.routeKey,
    status,
    durationMs,
    // What the request cost the database: the invocation's tally, which its metrics read too.
    ...invocationCost(),
    bytes: body === undefined ? 0 : Buffer.byteLength(body),
  }, logs("info") ? metricsForLogLine(done) : undefined);
  finishInvocation(done, carried === true);
  setLogCorrelation();
}

/** Once per invocation: an error thrown in `after` (once it left) reaches `onError` too. */
function leave(internal: Internal): void {
  if (internal.left) return;
  internal.left = true;
  leaveInvocation();
}

/**
 * Errors become our error body in this one place (never offline's 200 with an `errorMessage`,
 * never a stack to the client), and every request leaves one structured log line.
 */
function errorsAndAccessLog(name: string): MiddlewareObj<ApiGatewayEvent, Result, Error, LambdaContext, Internal> {
  return {
    before: (request) => {
      request.internal.started = performance.now();
      // The AWS calls' deadline (lib/store/aws-budgets.ts): what Lambda says is left, when it says.
      enterInvocation(request.context?.getRemainingTimeInMillis?.());
      // Every line this request logs carries its ids (Lambda's request id, X-Ray's trace id).
      setLogCorrelation(request.context?.awsRequestId ?? request.event.requestContext?.requestId, startInvocation());
    },
    after: (request) => {
      leave(request.internal);
      accessLog(name, request.event, request.context, request.response?.statusCode ?? 0, request.internal.started, request.response?.body);
    },
    onError: (request) => {
      leave(request.internal);
      const http = parsed.get(request.event) ?? fromApiGateway(request.event);
      // middy ends a request just before Lambda's deadline (a database throttled past the time
      // left): the client should retry, as with any other unavailability, not see a 500.
      const error = request.error?.name === "TimeoutError" ? new UnavailableError(2, "The request ran out of time, retry shortly") : request.error;
      const response = errorResponse(error, request.context?.awsRequestId ?? http.requestId);
      request.response = toApiGateway(response, http);
      accessLog(name, request.event, request.context, response.statusCode, request.internal.started, request.response.body);
    },
  };
}

/** An API Gateway handler (payload v1 or v2) around a handler of HttpRequest -> HttpResponse. */
export function httpHandler(name: string, handle: HttpHandler) {
  return middy<ApiGatewayEvent, Result, Error, LambdaContext, Internal>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(errorsAndAccessLog(name))
    .handler(async (event, lambda) => {
      const request = fromApiGateway(event);
      parsed.set(event, request);
      // Offline gives every request the same requestContext id; Lambda's own id is unique everywhere.
      if (lambda?.awsRequestId) request.requestId = lambda.awsRequestId;
      return toApiGateway(await handle(request, lambda), request);
    });
}
