import { afterEach, describe, expect, it } from "vitest";
import { ANSWER_RESERVE_MS, attemptTimeoutMs, deadlineOf, enterInvocation, leaveInvocation, timeLeftMs } from "./invocation-deadline.ts";

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
  afterEach(() => {
    // Balance whatever a failed test left entered.
    for (let i = 0; i < 3; i++) leaveInvocation();
  });

  it("is the invocation's while it is the only one, and none once it left", () => {
    enterInvocation(ANSWER_RESERVE_MS + 10_000);
    const left = timeLeftMs();
    expect(left).toBeLessThanOrEqual(10_000);
    expect(left).toBeGreaterThan(0);
    leaveInvocation();
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it("is none without a Lambda context", () => {
    enterInvocation(undefined);
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
    leaveInvocation();
  });

  it("is none while two invocations overlap in one process, so neither cuts the other's calls", () => {
    enterInvocation(ANSWER_RESERVE_MS + 1);
    expect(timeLeftMs()).toBeLessThanOrEqual(1);
    enterInvocation(ANSWER_RESERVE_MS + 60_000);
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
    leaveInvocation();
    // The one still running lost its deadline to the overlap: its calls keep their own timeouts.
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
    leaveInvocation();
    // The next invocation alone has its deadline again.
    enterInvocation(ANSWER_RESERVE_MS + 5_000);
    expect(timeLeftMs()).toBeLessThanOrEqual(5_000);
    leaveInvocation();
  });

  it("does not count below zero when left more often than entered", () => {
    leaveInvocation();
    leaveInvocation();
    enterInvocation(ANSWER_RESERVE_MS + 5_000);
    expect(timeLeftMs()).toBeLessThanOrEqual(5_000);
    leaveInvocation();
  });
});
