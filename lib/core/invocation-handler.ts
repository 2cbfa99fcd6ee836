/**
 * The one way a function's handler is made, for every entry kind (REST, GraphQL and the auth
 * routes through lib/http/handler.ts; WebSocket, stream, fan-out queue, the scheduled migration):
 * each call is opened as an invocation of its own and closed in a `finally`, awaited, whatever
 * the handler did (answered, threw, ran out of time). A new kind of entry built with it cannot
 * open half of an invocation or forget to close it.
 *
 * `open` and `close` are the only places an invocation starts and ends: its state (its own slot or
 * async context, invocation.ts), its ids on every log line, its deadline on every AWS call, its
 * trace id; then its line and its metrics, and its state given back. What else an invocation
 * starts and ends (a span) goes in these two.
 */
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import { closeInvocation, openInvocation, type Invocation } from "./invocation.ts";
import { beginInvocation, endInvocation, reportColdStart, type InvocationKind, type LambdaContextLike, type Measured } from "./invocation-lifecycle.ts";
import { errorFields, log } from "./log.ts";
import { metricsSettings, type MetricsSettings } from "./metrics.ts";
import { endInvocationSpan, startInvocationSpan, type TracedFunction } from "./tracing.ts";

export interface EntryKind<E, R> extends InvocationKind<E, R> {
  /**
   * middy answers for the handler this long before Lambda's timeout (an HTTP function's 503); 0
   * for none, where Lambda's timeout ends the call and the event source retries it.
   */
  timeoutEarlyInMillis: number;
  /** middy middlewares around the handler, inside the invocation (an HTTP function's error mapping). */
  use?: readonly MiddlewareObj<E, R, Error, Context>[];
}

export type InvocationHandler<E, R> = (event: E, context?: LambdaContextLike) => Promise<R>;

/** Every handler made here: a test checks that each function in functions/ exports one. */
const made = new WeakSet<object>();

export function isInvocationHandler(handler: unknown): boolean {
  return typeof handler === "function" && made.has(handler);
}

/**
 * What a built function keeps across its invocations, as a Lambda instance does: its settings, read
 * once as it is built, whether its cold start is still to come, and its tracing (tracing.ts). Kept
 * by the function, never by a module, so each function built in a process (the tests build many)
 * has its own cold start and its own spans, whatever was built or run before it.
 */
interface FunctionInstance extends TracedFunction {
  readonly metrics: MetricsSettings;
  coldStart: boolean;
}

/** The invocation begins: its ids, deadline and trace id; the function's first reports its cold start. */
function open<E, R>(kind: EntryKind<E, R>, instance: FunctionInstance, invocation: Invocation, event: E, context: LambdaContextLike | undefined): void {
  beginInvocation(invocation, context?.awsRequestId ?? kind.requestIdOf?.(event), context?.getRemainingTimeInMillis?.(), instance.metrics);
  const coldStart = instance.coldStart;
  instance.coldStart = false;
  startInvocationSpan(invocation, kind.service, instance, coldStart);
  if (coldStart) reportColdStart(kind.service);
}

/**
 * The invocation ends: its span (tracing.ts), its line and metrics, read from the event and the
 * response (none when the handler threw), then its state given back. The span's export is awaited
 * before the call answers: Lambda may freeze the process as soon as it has. A failure here is
 * logged, never the caller's answer.
 */
async function close<E, R>(kind: EntryKind<E, R>, invocation: Invocation, event: E, response: R | undefined, threw: boolean): Promise<void> {
  let exported: Promise<void> | undefined;
  try {
    const { line } = kind;
    const fields = line === undefined ? undefined : (measured: Measured) => line.fields(event, response, measured);
    const outcome = kind.outcome?.(event, response) ?? {};
    exported = endInvocationSpan(invocation, outcome, threw);
    endInvocation(kind.service, invocation, outcome, fields, line?.message);
  } catch (error) {
    log.error("invocation close failed", errorFields(error));
  } finally {
    // endInvocation gave it back already, unless reading the outcome threw first.
    closeInvocation(invocation);
  }
  await exported;
}

/**
 * `handle` as a function's handler: each call an invocation of its own, opened and closed here.
 * The metrics settings are read from the environment now, when the function is built, and every
 * invocation it opens carries them; its cold start and its tracing are its own (FunctionInstance):
 * no module caches them, nothing has to reset them.
 */
export function invocationHandler<E, R>(kind: EntryKind<E, R>, handle: (event: E, context: Context) => Promise<R>): InvocationHandler<E, R> {
  const instance: FunctionInstance = { metrics: metricsSettings(), coldStart: true, traces: undefined };
  const chain = middy<E, R, Error, Context>({ timeoutEarlyInMillis: kind.timeoutEarlyInMillis });
  for (const middleware of kind.use ?? []) chain.use(middleware);
  const run = chain.handler(handle);
  const handler: InvocationHandler<E, R> = (event, context) =>
    openInvocation(async (invocation) => {
      let response: R | undefined;
      let threw = true;
      try {
        open(kind, instance, invocation, event, context);
        response = await run(event, context as Context);
        threw = false;
        return response;
      } finally {
        await close(kind, invocation, event, response, threw);
      }
    });
  made.add(handler);
  return handler;
}
