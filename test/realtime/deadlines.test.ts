import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadlines } from "../../lib/realtime/deadlines.ts";

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
