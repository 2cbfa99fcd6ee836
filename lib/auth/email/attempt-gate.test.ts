import { describe, expect, it } from "vitest";
import { AuthError } from "../errors.ts";
import { PreconditionFailedError } from "../../core/errors.ts";
import { attemptGate, countAttempt } from "./attempt-gate.ts";

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

describe("counting an attempt by a conditional write", () => {
  /** A row whose write is lost to another attempt `lost` times before it lands. */
  function row(lost: number, counted = 0) {
    const writes: number[] = [];
    return {
      writes,
      row: {
        read: async () => ({ counted }),
        countOf: (r: { counted: number }) => ({ counted: r.counted, lastAt: at(60) }),
        write: async (_r: { counted: number }, attempts: number) => {
          writes.push(attempts);
          if (writes.length <= lost) throw new PreconditionFailedError("version moved");
          return `counted ${attempts}`;
        },
        busy: "Too many concurrent logins: try again",
      },
    };
  }

  it("reads again after a lost write, and gives up with a 429 after five", async () => {
    const twice = row(2, 1);
    expect(await countAttempt(THROTTLE, () => T0, twice.row)).toBe("counted 2");
    expect(twice.writes).toEqual([2, 2, 2]);
    const always = row(5);
    await expect(countAttempt(THROTTLE, () => T0, always.row)).rejects.toMatchObject({
      status: 429,
      reason: "TOO_MANY_ATTEMPTS",
      message: "Too many concurrent logins: try again",
    });
    expect(always.writes).toHaveLength(5);
  });

  it("writes nothing where there is no row, and nothing while the gate refuses", async () => {
    const none = { ...row(0).row, read: async () => undefined };
    expect(await countAttempt(THROTTLE, () => T0, none)).toBeUndefined();
    const locked = row(0, 10);
    await expect(countAttempt(THROTTLE, () => T0, locked.row)).rejects.toMatchObject({ reason: "LOCKED_OUT" });
    expect(locked.writes).toEqual([]);
  });
});
