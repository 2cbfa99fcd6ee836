import { describe, expect, it } from "vitest";
import { AuthError } from "../errors.ts";
import { attemptGate } from "./attempt-gate.ts";

const THROTTLE = { resendDelay: 60, mailsPerMinute: 100, mailsPerSourcePerMinute: 10, failedBeforeDelay: 3, delay: 2, lockout: { after: 10, duration: 900 } };
const T0 = Date.parse("2026-12-02T12:00:00Z");
const at = (secondsBefore: number): string => new Date(T0 - secondsBefore * 1000).toISOString();

/** The refusal `attemptGate` throws, or undefined when it lets the attempt through. */
function refusal(counted: number, secondsSinceLast: number, throttle = THROTTLE): AuthError | undefined {
  try {
    attemptGate(throttle, counted, at(secondsSinceLast), T0);
    return undefined;
  } catch (error) {
    if (error instanceof AuthError) return error;
    throw error;
  }
}

describe("the delay and lockout over failed attempts", () => {
  it("lets the first failures through, then makes each further one wait twice as long, at most 5 minutes", () => {
    expect(attemptGate(THROTTLE, 2, at(0), T0)).toEqual({ attempts: 2 });
    // 3 failures: 2 s; 4: 4 s; 5: 8 s; ... 9: 128 s (under the lockout's 10).
    expect(refusal(3, 1)).toMatchObject({ status: 429, reason: "TOO_MANY_ATTEMPTS", retryAfterSeconds: 1 });
    expect(attemptGate(THROTTLE, 3, at(2), T0)).toEqual({ attempts: 3 });
    expect(refusal(5, 7)).toMatchObject({ reason: "TOO_MANY_ATTEMPTS", retryAfterSeconds: 1 });
    expect(attemptGate(THROTTLE, 5, at(8), T0)).toEqual({ attempts: 5 });
    const noLockout = { ...THROTTLE, lockout: { after: 0, duration: 900 } };
    expect(refusal(20, 299, noLockout)).toMatchObject({ reason: "TOO_MANY_ATTEMPTS", retryAfterSeconds: 1 });
    expect(attemptGate(noLockout, 20, at(300), T0)).toEqual({ attempts: 20 });
  });

  it("locks after `lockout.after` failures for `lockout.duration`, then counts anew", () => {
    expect(refusal(10, 899)).toMatchObject({ status: 429, reason: "LOCKED_OUT", retryAfterSeconds: 1 });
    expect(refusal(10, 0)).toMatchObject({ reason: "LOCKED_OUT", retryAfterSeconds: 900 });
    expect(attemptGate(THROTTLE, 10, at(900), T0)).toEqual({ attempts: 0 });
  });

  it("takes a count without a time (a v3 row) as an expired lock", () => {
    expect(attemptGate(THROTTLE, 50, undefined, T0)).toEqual({ attempts: 0 });
    expect(attemptGate(THROTTLE, undefined, undefined, T0)).toEqual({ attempts: 0 });
  });
});
