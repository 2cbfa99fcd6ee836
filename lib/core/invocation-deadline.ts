/**
 * The invocation's deadline, as the AWS clients' HTTP handler reads it (lib/store/aws-budgets.ts):
 * each attempt of an AWS call gets the shorter of its own timeout and the time left, so a call
 * never outlives the invocation, and an attempt the time left cannot hold is not started.
 *
 * The deadline is the current invocation's (invocation.ts), set as the invocation opens
 * (invocation-handler.ts): invocations served at once by one process each keep their own.
 */
import { currentInvocation } from "./invocation.ts";

/** Kept back from the remaining time for answering: the error response and its log line. */
export const ANSWER_RESERVE_MS = 500;

/**
 * The deadline of an invocation that has `remainingMs` left (the Lambda context's
 * getRemainingTimeInMillis()), on performance.now()'s clock: +Infinity when it has no such
 * figure (not a number, or not finite).
 */
export function deadlineOf(remainingMs: number | undefined, now: number): number {
  if (typeof remainingMs !== "number" || !Number.isFinite(remainingMs)) return Number.POSITIVE_INFINITY;
  return now + remainingMs - ANSWER_RESERVE_MS;
}

/** Milliseconds left before the invocation's deadline (+Infinity without one; <= 0 past it). */
export function timeLeftMs(): number {
  return currentInvocation().deadline - performance.now();
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
