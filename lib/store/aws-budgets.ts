/**
 * The time budgets of every AWS client a function builds (DynamoDB, SES, API Gateway's management
 * API): connection and request timeouts on each attempt, so a stalled connection fails fast and
 * the SDK retries on a new one; fewer attempts for a stalled call than for a throttled one; and no
 * attempt (nor backoff) past the invocation's deadline (lib/core/invocation-deadline.ts).
 * docs/operating.md, "Time budgets", gives the figures.
 */
import { StandardRetryStrategy } from "@smithy/core/retry";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { RetryErrorInfo, StandardRetryToken } from "@smithy/types";
import { UnavailableError } from "../core/errors.ts";
import { attemptTimeoutMs, timeLeftMs } from "../core/invocation-deadline.ts";
import { log } from "../core/log.ts";

/** One client's budget. */
export interface ClientBudget {
  /** Establishing a connection. */
  connectionTimeoutMs: number;
  /** One attempt, connection included, until the response's headers. */
  requestTimeoutMs: number;
  /** Attempts in all (the first included), for errors the SDK retries (throttling among them). */
  maxAttempts: number;
  /** Of those, attempts for a call that timed out or lost its connection. */
  stalledAttempts: number;
}

/**
 * DynamoDB answers in milliseconds: three seconds without an answer is a stalled connection. Six
 * attempts ride out throttling; three for a stalled call keep it under ten seconds in all.
 */
export const DYNAMODB_BUDGET: ClientBudget = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 6, stalledAttempts: 3 };
/**
 * DynamoDB's budget, with `DYNAMODB_REQUEST_TIMEOUT_MS` (the `dynamodbRequestTimeoutMs` deploy
 * parameter) as its request timeout and `DYNAMODB_CONNECTION_TIMEOUT_MS` as its connection timeout
 * when each is a whole number of milliseconds: a slower endpoint (DynamoDB Local on a loaded
 * machine, where a burst of calls waits seconds for the JVM to accept its connections) needs more.
 * Read once, when the client is built.
 */
export function dynamodbBudget(env: NodeJS.ProcessEnv = process.env): ClientBudget {
  const requestTimeoutMs = wholeMilliseconds(env, "DYNAMODB_REQUEST_TIMEOUT_MS", DYNAMODB_BUDGET.requestTimeoutMs);
  const connectionTimeoutMs = wholeMilliseconds(env, "DYNAMODB_CONNECTION_TIMEOUT_MS", DYNAMODB_BUDGET.connectionTimeoutMs);
  if (requestTimeoutMs === DYNAMODB_BUDGET.requestTimeoutMs && connectionTimeoutMs === DYNAMODB_BUDGET.connectionTimeoutMs) return DYNAMODB_BUDGET;
  return { ...DYNAMODB_BUDGET, requestTimeoutMs, connectionTimeoutMs };
}

function wholeMilliseconds(env: NodeJS.ProcessEnv, name: string, defaultMs: number): number {
  const raw = env[name];
  // serverless offline passes an unset `${param:x, null}` as the string "null": unset, not wrong.
  if (raw === undefined || raw === "" || raw === "null") return defaultMs;
  const ms = Number(raw);
  if (Number.isInteger(ms) && ms > 0) return ms;
  log.warn(`${name} is not a whole number of milliseconds: the default applies`, { value: raw, defaultMs });
  return defaultMs;
}

/** SES sends one mail per call, slower than a DynamoDB read at its slowest. */
export const SES_BUDGET: ClientBudget = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 3, stalledAttempts: 2 };
/** One attempt: the fan-out retries throttled posts itself, within its own per-post timeout. */
export const MANAGEMENT_API_BUDGET: ClientBudget = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 1, stalledAttempts: 1 };

/** Seconds a client is told to wait when its request ran out of time. */
const RETRY_AFTER_SECONDS = 2;

/** Not retryable (no transient name or code, no $retryable): every face answers it 503 with Retry-After. */
function outOfTime(): UnavailableError {
  return new UnavailableError(RETRY_AFTER_SECONDS, "The request ran out of time, retry shortly");
}

type Request = Parameters<NodeHttpHandler["handle"]>[0];
type Options = NonNullable<Parameters<NodeHttpHandler["handle"]>[1]>;

class DeadlineHttpHandler extends NodeHttpHandler {
  constructor(
    private readonly requestTimeoutMs: number,
    connectionTimeoutMs: number,
  ) {
    // Without throwOnRequestTimeout the handler only logs a warning when the timeout passes.
    super({ connectionTimeout: connectionTimeoutMs, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true });
  }

  override handle(request: Request, options?: Options): ReturnType<NodeHttpHandler["handle"]> {
    const shorter = attemptTimeoutMs(options?.requestTimeout ?? this.requestTimeoutMs, timeLeftMs());
    // The common case allocates nothing: the invocation's time left holds a whole attempt.
    if (shorter === undefined) return super.handle(request, options);
    if (shorter === 0) return Promise.reject(outOfTime());
    return super.handle(request, { ...options, requestTimeout: shorter });
  }
}

/**
 * The least time a retry's attempt must have left after its backoff to be worth starting. An
 * attempt cut at the deadline fails with up to a millisecond left (timers are millisecond-grained):
 * retried, it would sleep its backoff into the deadline and end as "ran out of time" instead of
 * with its own error, the database's timeout.
 */
const MIN_ATTEMPT_MS = 10;

/**
 * The SDK's standard strategy (backoff with jitter, the retry quota), with fewer attempts for a
 * stalled call (a timeout, a reset connection: the TRANSIENT class) and no retry once the
 * invocation has too little time left for one, before its backoff or after it, rather than a
 * backoff slept past its deadline.
 */
class BudgetRetryStrategy extends StandardRetryStrategy {
  /** A call's stalled attempts so far, by its latest token (a call's first token has none). */
  private readonly stalled = new WeakMap<StandardRetryToken, number>();

  constructor(
    maxAttempts: number,
    private readonly stalledAttempts: number,
  ) {
    super(maxAttempts);
  }

  override async refreshRetryTokenForRetry(token: StandardRetryToken, errorInfo: RetryErrorInfo): Promise<StandardRetryToken> {
    // Counted apart from throttled attempts, which have the call's whole maxAttempts.
    const stalled = (this.stalled.get(token) ?? 0) + (errorInfo.errorType === "TRANSIENT" ? 1 : 0);
    // Refused, the SDK rethrows the call's last error, as when its attempts are spent.
    if (stalled >= this.stalledAttempts) throw new Error("No retry: the stalled call's attempts are spent");
    if (timeLeftMs() < MIN_ATTEMPT_MS) throw new Error("No retry: the invocation is out of time");
    const next = await super.refreshRetryTokenForRetry(token, errorInfo);
    if (timeLeftMs() - next.getRetryDelay() < MIN_ATTEMPT_MS) throw new Error("No retry: the invocation is out of time after the backoff");
    if (stalled > 0) this.stalled.set(next, stalled);
    return next;
  }
}

/** A client's HTTP handler and retry strategy: `new XClient({ ...clientBudget(BUDGET), ... })`. */
export function clientBudget(budget: ClientBudget): { requestHandler: NodeHttpHandler; retryStrategy: StandardRetryStrategy } {
  return {
    requestHandler: new DeadlineHttpHandler(budget.requestTimeoutMs, budget.connectionTimeoutMs),
    retryStrategy: new BudgetRetryStrategy(budget.maxAttempts, budget.stalledAttempts),
  };
}
