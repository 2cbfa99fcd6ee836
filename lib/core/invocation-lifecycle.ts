/**
 * How an invocation begins and ends, whatever its entry kind (HTTP, WebSocket, stream, queue,
 * schedule): it begins with its correlation ids, trace id and deadline, and ends with its one
 * line: a request's log line carrying the metrics where they can ride on it (Lambda's JSON on
 * stdout), else the metrics' own line. invocationHandler (invocation-handler.ts) calls both, in
 * its one `open` and its one `close`, for every function.
 */
import { compileCacheReport } from "./compile-cache.ts";
import { closeInvocation, type Invocation } from "./invocation.ts";
import { deadlineOf } from "./invocation-deadline.ts";
import { log, logsJson } from "./log.ts";
import {
  countEvent,
  invocationCost,
  invocationTraceId,
  metricsDestination,
  metricsForLogLine,
  writeMetricsLine,
  type Finished,
  type InvocationCost,
  type MetricsSettings,
} from "./metrics.ts";

/** What an invocation reads of Lambda's context (tests call the handlers without one). */
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
 * Ends `invocation` with its one line (once), and gives its slot or context back (closeInvocation).
 * `fields` are its log line's, if it has one.
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

/**
 * A function's first invocation, its cold start (invocationHandler says which is, keeping the flag
 * on the function it built, as a Lambda instance runs one: no module keeps it). In Lambda, or
 * wherever a compile cache was shipped, a line of its own says so, with the Node version running it
 * and whether the bundle was compiled from its compile cache (compile-cache.ts), and the
 * invocation's metrics count the hit or miss.
 */
export function reportColdStart(service: string): void {
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
