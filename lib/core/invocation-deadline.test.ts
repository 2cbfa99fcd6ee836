import { describe, expect, it } from "vitest";
import { currentInvocation, runInvocation } from "./invocation.ts";
import { ANSWER_RESERVE_MS, attemptTimeoutMs, deadlineOf, timeLeftMs } from "./invocation-deadline.ts";
import { beginInvocation } from "./invocation-lifecycle.ts";

/** Begins the current invocation with `remainingMs` left, as invocationHandler does with Lambda's context. */
const begin = (remainingMs: number | undefined): void => beginInvocation(currentInvocation(), undefined, remainingMs);
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("deadlineOf", () => {
  it("keeps the answer's reserve back from the time Lambda says is left", () => {
    expect(deadlineOf(29_000, 1_000)).toBe(1_000 + 29_000 - ANSWER_RESERVE_MS);
  });

  it("is already past when less than the reserve is left", () => {
    expect(deadlineOf(ANSWER_RESERVE_MS - 1, 50)).toBeLessThan(50);
    expect(deadlineOf(0, 50)).toBe(50 - ANSWER_RESERVE_MS);
  });

  it("is +Infinity without a figure from Lambda (no context, or not a finite number)", () => {
    expect(deadlineOf(undefined, 10)).toBe(Number.POSITIVE_INFINITY);
    expect(deadlineOf(Number.NaN, 10)).toBe(Number.POSITIVE_INFINITY);
    expect(deadlineOf(Number.POSITIVE_INFINITY, 10)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("attemptTimeoutMs", () => {
  it("keeps the client's own timeout when the time left holds a whole attempt", () => {
    expect(attemptTimeoutMs(1_000, Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(attemptTimeoutMs(1_000, 5_000)).toBeUndefined();
    // Exactly one attempt's worth left: the own timeout is already the shorter (or equal) one.
    expect(attemptTimeoutMs(1_000, 1_000)).toBeUndefined();
    expect(attemptTimeoutMs(1_000, Number.NaN)).toBeUndefined();
  });

  it("shortens the attempt to the whole milliseconds left when they are fewer", () => {
    expect(attemptTimeoutMs(1_000, 999.9)).toBe(999);
    expect(attemptTimeoutMs(1_000, 1)).toBe(1);
    expect(attemptTimeoutMs(3_000, 1_500.5)).toBe(1_500);
  });

  it("is 0 (no attempt) under a millisecond left or past the deadline", () => {
    expect(attemptTimeoutMs(1_000, 0.99)).toBe(0);
    expect(attemptTimeoutMs(1_000, 0)).toBe(0);
    expect(attemptTimeoutMs(1_000, -250)).toBe(0);
    expect(attemptTimeoutMs(1_000, Number.NEGATIVE_INFINITY)).toBe(0);
  });
});

describe("the invocation's deadline", () => {
  it("is the invocation's while it runs, and none once it ended", async () => {
    await runInvocation(async () => {
      begin(ANSWER_RESERVE_MS + 10_000);
      await tick();
      const left = timeLeftMs();
      expect(left).toBeLessThanOrEqual(10_000);
      expect(left).toBeGreaterThan(0);
    });
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it("is none without a Lambda context", () =>
    runInvocation(async () => {
      begin(undefined);
      expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
    }));

  it("is each invocation's own while two overlap in one process, across their awaits", async () => {
    const seen: Record<string, number[]> = { short: [], long: [] };
    const invocation = (name: "short" | "long", remainingMs: number) =>
      runInvocation(async () => {
        begin(remainingMs);
        for (let i = 0; i < 3; i++) {
          await tick();
          seen[name]?.push(timeLeftMs());
        }
      });
    await Promise.all([invocation("short", ANSWER_RESERVE_MS + 1_000), invocation("long", ANSWER_RESERVE_MS + 60_000)]);
    expect(seen.short).toHaveLength(3);
    expect(seen.long).toHaveLength(3);
    for (const left of seen.short ?? []) expect(left).toBeLessThanOrEqual(1_000);
    for (const left of seen.long ?? []) expect(left).toBeGreaterThan(1_000);
    // Both ended: nothing left of either.
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
  });
});
