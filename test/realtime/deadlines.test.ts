import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UnavailableError } from "../../lib/core/errors.ts";
import { currentInvocation, runInvocation } from "../../lib/core/invocation.ts";
import { ANSWER_RESERVE_MS, timeLeftMs } from "../../lib/core/invocation-deadline.ts";
import { beginInvocation } from "../../lib/core/invocation-lifecycle.ts";
import { Deadlines, FRAME_ANSWER_RESERVE_MS, OutOfFrameTime, withAnswerReserve } from "../../lib/realtime/deadlines.ts";

const never = () => new Promise<string>(() => undefined);

describe("deadlines shared by the calls of one millisecond", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives a call's own result, and leaves no timer once every call of the millisecond is done", async () => {
    const deadlines = new Deadlines(1000);
    const signals: AbortSignal[] = [];
    const results = await Promise.all(["a", "b"].map((v) => deadlines.run(async (signal) => (signals.push(signal), v), "timeout")));
    expect(results).toEqual(["a", "b"]);
    expect(signals.every((s) => !s.aborted)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("times out a hanging call after at least `ms` and aborts its signal, while its neighbour's result stands", async () => {
    const deadlines = new Deadlines(1000);
    let hung: AbortSignal | undefined;
    const hanging = deadlines.run((signal) => ((hung = signal), never()), "timeout");
    const quick = deadlines.run(async () => "done", "timeout");
    expect(await quick).toBe("done");
    let settled: string | undefined;
    void hanging.then((v) => (settled = v));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBeUndefined();
    expect(hung?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(settled).toBe("timeout");
    expect(hung?.aborted).toBe(true);
  });

  it("lets a burst of calls each listen to the shared signal without a listener-leak warning", async () => {
    const warnings = vi.spyOn(process, "emitWarning");
    const deadlines = new Deadlines(1000);
    const listened = Array.from({ length: 60 }, () =>
      deadlines.run((signal) => new Promise<string>((resolve) => signal.addEventListener("abort", () => resolve("aborted"), { once: true })), "timeout"),
    );
    await vi.advanceTimersByTimeAsync(1001);
    expect(new Set(await Promise.all(listened)).size).toBe(1);
    expect(warnings).not.toHaveBeenCalled();
    warnings.mockRestore();
  });

  it("gives calls of a later millisecond their own deadline", async () => {
    const deadlines = new Deadlines(1000);
    let first: string | undefined;
    let later: string | undefined;
    void deadlines.run(() => never(), "first timed out").then((v) => (first = v));
    await vi.advanceTimersByTimeAsync(500);
    void deadlines.run(() => never(), "later timed out").then((v) => (later = v));
    await vi.advanceTimersByTimeAsync(501);
    expect(first).toBe("first timed out");
    expect(later).toBeUndefined();
    await vi.advanceTimersByTimeAsync(500);
    expect(later).toBe("later timed out");
  });
});

describe("a frame's work within the invocation, its answer's time kept", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** `body` inside an invocation with `remainingMs` left, as a function's handler begins it (invocation-handler.ts). */
  const within = <T>(remainingMs: number | undefined, body: () => Promise<T>): Promise<T> =>
    runInvocation(async () => {
      beginInvocation(currentInvocation(), "test", remainingMs);
      return body();
    });

  it("moves the deadline earlier for the work, gives up on it there (its signal aborted), and restores the deadline for the answer", async () => {
    await within(10_000, async () => {
      const full = currentInvocation().deadline;
      let seen = 0;
      let signal: AbortSignal | undefined;
      const outcome = withAnswerReserve(FRAME_ANSWER_RESERVE_MS, (abandoned) => {
        signal = abandoned;
        seen = currentInvocation().deadline;
        return never();
      }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(10_000 - ANSWER_RESERVE_MS - FRAME_ANSWER_RESERVE_MS);
      expect(await outcome).toBeInstanceOf(OutOfFrameTime);
      expect(await outcome).toBeInstanceOf(UnavailableError);
      expect(seen).toBe(full - FRAME_ANSWER_RESERVE_MS);
      expect(signal?.aborted).toBe(true);
      // The answer has the reserve: the invocation's own deadline is back, FRAME_ANSWER_RESERVE_MS ahead.
      expect(currentInvocation().deadline).toBe(full);
      expect(timeLeftMs()).toBe(FRAME_ANSWER_RESERVE_MS);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  it("gives the work's own result and failure as they are, and leaves no timer", async () => {
    await within(10_000, async () => {
      expect(await withAnswerReserve(FRAME_ANSWER_RESERVE_MS, async (abandoned) => (abandoned.aborted ? "aborted" : "done"))).toBe("done");
      await expect(withAnswerReserve(FRAME_ANSWER_RESERVE_MS, () => Promise.reject(new Error("own")))).rejects.toThrow("own");
      expect(vi.getTimerCount()).toBe(0);
    });
    // Without a deadline (no Lambda context): the work as it is, no timer.
    await within(undefined, async () => {
      expect(await withAnswerReserve(FRAME_ANSWER_RESERVE_MS, async () => "done")).toBe("done");
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
