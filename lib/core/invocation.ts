/**
 * One invocation's state: its correlation ids, its deadline and its tally (DynamoDB calls and
 * capacity, counted events). The log lines, the metrics and the AWS clients' attempt budgets read
 * the current one (currentInvocation()); every function's handler opens and closes it in one
 * place, invocationHandler (invocation-handler.ts).
 *
 * Lambda runs one invocation at a time per instance, so the usual case keeps the invocation in a
 * module slot and pays nothing per await. A process that serves several at once (`npm start`, the
 * in-process tests) scopes each invocation that starts while another runs with AsyncLocalStorage:
 * its promise hooks slow every await in the process, so they are on only while invocations overlap.
 */
import type { Span } from "@opentelemetry/api";
import { AsyncLocalStorage } from "node:async_hooks";
import type { EventMetric, MetricsSettings } from "./metrics.ts";
import type { FunctionTraces } from "./tracing.ts";

export class Invocation {
  /** Lambda's request id (or the event's own, where Lambda gives none), on every line it logs. */
  requestId: string | undefined;
  /** X-Ray's trace root, read once as it begins when tracing is on. */
  traceId: string | undefined;
  /** Its span while it runs, when it is traced and sampled (tracing.ts). */
  span: Span | undefined;
  /** The traces of the function it runs in, while its span is open: its SDK calls' spans go there. */
  traces: FunctionTraces | undefined;
  /** On performance.now()'s clock, set as it begins. */
  startedAt = 0;
  /** On performance.now()'s clock; +Infinity without a figure from Lambda. */
  deadline = Number.POSITIVE_INFINITY;
  dynamoCalls = 0;
  readUnits = 0;
  writeUnits = 0;
  /** Items DynamoDB evaluated (a Query's or Scan's ScannedCount, else the items returned). */
  itemsRead = 0;
  throttles = 0;
  /** Made at the first event counted: most invocations count none. */
  events: Map<EventMetric, number> | undefined;
  ended = false;
  /** How its lines are written (log.ts), read from the environment at its first line. */
  logSettings: { threshold: number; readable: boolean } | undefined;
  /**
   * The metrics settings of the function that began it (read when that function was built): where
   * its lines go. None outside an invocation a function began: tallied, never published.
   */
  metrics: MetricsSettings | undefined;
  /** Opened by openInvocation (not the ambient one), and how: in the module slot or in its own async context. */
  opened: "slot" | "context" | undefined;

  /** Starts afresh (what a late callback of an earlier invocation left is not counted twice). */
  begin(requestId: string | undefined, traceId: string | undefined, deadline: number, metrics?: MetricsSettings): void {
    this.requestId = requestId;
    this.metrics = metrics;
    this.traceId = traceId;
    this.deadline = deadline;
    this.startedAt = performance.now();
    this.dynamoCalls = 0;
    this.readUnits = 0;
    this.writeUnits = 0;
    this.itemsRead = 0;
    this.throttles = 0;
    this.events = undefined;
    this.logSettings = undefined;
    this.ended = false;
  }
}

/*
 * The state below is the process's, and truly so: which invocations are running in it now, and
 * the async context that tells overlapping ones apart, are facts of its one event loop, not of a
 * function or an application (two functions in one process share the loop, and an invocation of
 * one may overlap the other's). Every open is paired with its close (invocationHandler's
 * `finally`, runInvocation's), so nothing here outlives the invocations it counts: a test finds
 * it as the one before left it, with none running, and has nothing to reset.
 */

/** What runs outside any invocation (a CLI command, a test's own calls): tallied, never published. */
const ambient = new Invocation();
/** The invocation that started while no other ran: kept here, not in the async context. */
let solo: Invocation | undefined;
let running = 0;
let scoped = 0;
let storage: AsyncLocalStorage<Invocation> | undefined;

export function currentInvocation(): Invocation {
  if (scoped > 0) {
    const own = (storage as AsyncLocalStorage<Invocation>).getStore();
    if (own !== undefined) return own;
  }
  return solo ?? ambient;
}

/**
 * Runs `work` as a new invocation with state of its own, until closeInvocation. Alone in the
 * process, the invocation takes the module slot; opened while others run, it gets an async context
 * of its own, and whatever runs in it (its awaits, its SDK calls' callbacks) finds it there. The
 * invocations already running keep theirs: what they started before had no context, and so still
 * finds the slot. A function's invocations are opened by invocationHandler (invocation-handler.ts).
 */
export function openInvocation<T>(work: (invocation: Invocation) => T): T {
  const invocation = new Invocation();
  if (running++ === 0) {
    invocation.opened = "slot";
    solo = invocation;
    return work(invocation);
  }
  invocation.opened = "context";
  scoped++;
  storage ??= new AsyncLocalStorage<Invocation>();
  return storage.run(invocation, work, invocation);
}

/** The invocation ended: its slot or context is given back (once; the ambient one has neither). */
export function closeInvocation(invocation: Invocation): void {
  const opened = invocation.opened;
  if (opened === undefined) return;
  invocation.opened = undefined;
  running--;
  if (solo === invocation) solo = undefined;
  // The last overlap ended: the promise hooks go off again (contexts left behind are ignored).
  if (opened === "context" && --scoped === 0) storage?.disable();
}

/** How many invocations are open in the process now (test/setup/scoped-state.ts: a test file must leave none). */
export function invocationsOpen(): number {
  return running;
}

/** Runs `work` as one invocation of its own, closed when it settles (tests' own calls, outside any handler). */
export async function runInvocation<T>(work: () => Promise<T>): Promise<T> {
  let invocation: Invocation | undefined;
  try {
    return await openInvocation((opened) => {
      invocation = opened;
      return work();
    });
  } finally {
    if (invocation !== undefined) closeInvocation(invocation);
  }
}
