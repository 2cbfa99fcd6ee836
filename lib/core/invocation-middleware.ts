/**
 * The one invocation middleware (middy), used by every function: HTTP, WebSocket, stream and
 * migration. It begins the current invocation (invocation.ts) with its correlation ids, trace id
 * and deadline, and ends it with its one line: a request's log line carrying the metrics where
 * they can ride on it (Lambda's JSON on stdout), else the metrics' own line.
 *
 * Register it first (`middy().use(invocationMiddleware(...)).use(...)`): its `before` runs first
 * and its `after`/`onError` last, once the others have made the response (an error mapped to its
 * answer included). Run each call with perInvocation (invocation.ts) for state of its own: the
 * middleware closes what perInvocation opened.
 */
import type { MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import { compileCacheReport } from "./compile-cache.ts";
import { closeInvocation, currentInvocation, type Invocation } from "./invocation.ts";
import { deadlineOf } from "./invocation-deadline.ts";
import { log, logsJson } from "./log.ts";
import {
  countEvent,
  invocationCost,
  invocationTraceId,
  metricsDestination,
  metricsForLogLine,
  metricsSettings,
  writeMetricsLine,
  type Finished,
  type InvocationCost,
  type MetricsSettings,
} from "./metrics.ts";

/** What the middleware reads of Lambda's context (tests call the handlers without one). */
export interface LambdaContextLike {
  awsRequestId?: string;
  getRemainingTimeInMillis?: () => number;
}

/** What a request line reports of its invocation. */
export interface Measured extends InvocationCost {
  requestId: string | undefined;
  durationMs: number;
}

/** How an invocation ended, as its kind reads it from the event and the response. */
export interface Outcome {
  /** A request's route key and status: its metrics are published per route and status class. */
  route?: string;
  status?: number;
}

/** The invocation's log line (a request's): without one, its metrics line is its line. */
export interface RequestLine<E, R> {
  message: string;
  fields: (event: E, response: R | null | undefined, measured: Measured) => Record<string, unknown>;
}

export interface InvocationKind<E, R> {
  /** The function kind, the metrics' Service dimension: rest, graphql, auth, graphiql, ws, stream, migrate. */
  service: string;
  /** The event's own request id, for a call without Lambda's (offline, tests). */
  requestIdOf?: (event: E) => string | undefined;
  /** Read once the response is made (or the error left none). */
  outcome?: (event: E, response: R | null | undefined) => Outcome;
  line?: RequestLine<E, R>;
}

/**
 * Begins `invocation` afresh: its ids on every line it logs, its deadline on every AWS call, and
 * the function's metrics settings (none: tallied, never published).
 */
export function beginInvocation(invocation: Invocation, requestId: string | undefined, remainingMs: number | undefined, metrics?: MetricsSettings): void {
  invocation.begin(requestId, invocationTraceId(metrics), deadlineOf(remainingMs, performance.now()), metrics);
}

/**
 * Ends `invocation` with its one line (once: an `after` that threw reaches `onError` too), and
 * closes it (perInvocation). `fields` are its log line's, if it has one. Never throws.
 */
export function endInvocation(
  service: string,
  invocation: Invocation,
  outcome: Outcome,
  fields?: (measured: Measured) => Record<string, unknown>,
  message = "request",
): void {
  if (invocation.ended) return;
  invocation.ended = true;
  try {
    const endedAt = performance.now();
    const durationMs = Math.round((endedAt - invocation.startedAt) * 100) / 100;
    const done: Finished = { service, route: outcome.route, status: outcome.status, latencyMs: durationMs, requestId: invocation.requestId, endedAt };
    if (fields !== undefined) {
      const line = fields({ requestId: invocation.requestId, durationMs, ...invocationCost(invocation) });
      if (metricsDestination(invocation.metrics) === "log line" && logsJson("info")) {
        log.infoCarrying(message, line, metricsForLogLine(done, invocation));
        return;
      }
      log.info(message, line);
    }
    writeMetricsLine(done, invocation);
  } finally {
    closeInvocation(invocation);
  }
}

let coldStart = true;

/**
 * The process's first invocation: in Lambda, or wherever a compile cache was shipped, a line of
 * its own says so, with the Node version running it and whether the bundle was compiled from its
 * compile cache (compile-cache.ts), and the invocation's metrics count the hit or miss.
 */
function reportColdStart(service: string): void {
  coldStart = false;
  const cache = compileCacheReport(import.meta.url);
  // A real Lambda runtime sets AWS_EXECUTION_ENV; serverless offline does not.
  if (cache.state === "none" && process.env.AWS_EXECUTION_ENV === undefined) return;
  // The flags the runtime started node with: V8's are part of the compile cache's key.
  const fields: Record<string, unknown> = {
    service,
    node: process.version,
    arch: process.arch,
    execArgv: process.execArgv.join(" "),
    compileCache: cache.state,
  };
  if (cache.reason !== undefined) fields.compileCacheReason = cache.reason;
  log.info("cold start", fields);
  if (cache.state !== "none") countEvent(cache.state === "hit" ? "CompileCacheHits" : "CompileCacheMisses");
}

/**
 * The middleware of a function of `kind`, built with the function: the metrics settings are read
 * from the environment now, once, and every invocation it begins carries them.
 */
export function invocationMiddleware<E, R>(kind: InvocationKind<E, R>): MiddlewareObj<E, R, Error, Context> {
  const { service, outcome, line } = kind;
  const metrics = metricsSettings();
  const end = (request: { event: E; response: R | null | undefined }): void => {
    const { event, response } = request;
    const fields = line === undefined ? undefined : (measured: Measured) => line.fields(event, response, measured);
    endInvocation(service, currentInvocation(), outcome?.(event, response) ?? {}, fields, line?.message);
  };
  return {
    before: (request) => {
      const context = request.context as LambdaContextLike | undefined;
      beginInvocation(currentInvocation(), context?.awsRequestId ?? kind.requestIdOf?.(request.event), context?.getRemainingTimeInMillis?.(), metrics);
      if (coldStart) reportColdStart(service);
    },
    after: end,
    onError: end,
  };
}
