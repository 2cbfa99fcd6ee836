/**
 * The invocation's deadline, as the AWS clients' HTTP handler reads it (lib/store/aws-budgets.ts):
 * each attempt of an AWS call gets the shorter of its own timeout and the time left, so a call
 * never outlives the invocation, and an attempt the time left cannot hold is not started.
 *
 * Lambda runs one invocation at a time per instance, so the deadline is module state, set by the
 * handler wrappers (lib/http/handler.ts, lib/realtime/handler.ts) when an invocation starts: no
 * AsyncLocalStorage, whose promise hooks slow every await. When one process serves several
 * invocations at once (in-process tests), no deadline is applied at all while more than one runs,
 * so one request's deadline never cuts another's calls: they keep their own timeouts.
 */

/** Kept back from the remaining time for answering: the error response and its log line. */
export const ANSWER_RESERVE_MS = 500;

let running = 0;
/** On performance.now()'s clock; +Infinity when no single invocation with a deadline runs. */
let deadline = Number.POSITIVE_INFINITY;

/**
 * The deadline of an invocation that has `remainingMs` left (the Lambda context's
 * getRemainingTimeInMillis()), on performance.now()'s clock: +Infinity when it has no such
 * figure (not a number, or not finite).
 */
export function deadlineOf(remainingMs: number | undefined, now: number): number {
  if (typeof remainingMs !== "number" || !Number.isFinite(remainingMs)) return Number.POSITIVE_INFINITY;
  return now + remainingMs - ANSWER_RESERVE_MS;
}

/** Called as an invocation starts, with what its Lambda context says is left (when it says). */
export function enterInvocation(remainingMs: number | undefined): void {
  running++;
  deadline = running === 1 ? deadlineOf(remainingMs, performance.now()) : Number.POSITIVE_INFINITY;
}

/** Called once as the same invocation ends, whatever its outcome. */
export function leaveInvocation(): void {
  if (running > 0) running--;
  // The invocation still running (if any) has lost its deadline to the overlap: it keeps its
  // calls' own timeouts, the conservative side.
  deadline = Number.POSITIVE_INFINITY;
}

/** Milliseconds left before the invocation's deadline (+Infinity without one; <= 0 past it). */
export function timeLeftMs(): number {
  return deadline - performance.now();
}

/**
 * The request timeout of an attempt starting with `leftMs` to the deadline, for a client whose
 * own timeout is `ownMs`: `undefined` to keep its own (the time left holds a whole one), the
 * time left in whole milliseconds when that is shorter, 0 when no attempt fits any more (less
 * than a millisecond left, or past the deadline).
 */
export function attemptTimeoutMs(ownMs: number, leftMs: number): number | undefined {
  if (!(leftMs < ownMs)) return undefined;
  const whole = Math.floor(leftMs);
  return whole >= 1 ? whole : 0;
}
