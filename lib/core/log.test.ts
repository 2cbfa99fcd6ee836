import { afterEach, describe, expect, it, vi } from "vitest";
import { currentInvocation, runInvocation } from "./invocation.ts";
import { beginInvocation } from "./invocation-lifecycle.ts";
import { log } from "./log.ts";

/** The lines written to stderr while `run` runs (warnings: tests log at LOG_LEVEL=warn). */
function linesOf(run: () => void): string[] {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

describe("log (JSON lines, as in Lambda)", () => {
  afterEach(() => vi.useRealTimers());

  it("writes {level, time, message, ...fields} as one JSON line, fields in their order, undefined ones left out", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 2, 3, 4, 5, 6), toFake: ["Date"] });
    const fields = { requestId: "r1", method: "GET", path: '/posts/"x"', status: 200, durationMs: undefined, nested: { a: [1, null] } };
    const [line] = linesOf(() => log.warn("request", fields));
    expect(line).toBe(`${JSON.stringify({ level: "warn", time: "2026-01-02T03:04:05.006Z", message: "request", ...fields })}\n`);
    expect(linesOf(() => log.warn("no fields"))).toEqual(['{"level":"warn","time":"2026-01-02T03:04:05.006Z","message":"no fields"}\n']);
  });

  it("stamps each line with the time it is written", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 2), toFake: ["Date"] });
    const [first] = linesOf(() => log.warn("a"));
    vi.setSystemTime(Date.UTC(2026, 0, 2) + 1);
    const [second] = linesOf(() => log.warn("a"));
    expect((JSON.parse(first as string) as { time: string }).time).toBe("2026-01-02T00:00:00.000Z");
    expect((JSON.parse(second as string) as { time: string }).time).toBe("2026-01-02T00:00:00.001Z");
  });

  it("lets a field named like a member replace it in place, as the merged object always did", () => {
    vi.useFakeTimers({ now: 0, toFake: ["Date"] });
    const [line] = linesOf(() => log.warn("request", { a: 1, message: "overridden", time: "t" }));
    expect(line).toBe('{"level":"warn","time":"t","message":"overridden","a":1}\n');
  });
});

describe("log correlation", () => {
  it("puts the invocation's request and trace ids on every line it writes; a line's own id wins", async () => {
    const lines = await runInvocation(async () => {
      beginInvocation(currentInvocation(), "req-1", undefined);
      currentInvocation().traceId = "1-abc";
      return [...linesOf(() => log.warn("a")), ...linesOf(() => log.warn("b", { requestId: "other" }))];
    });
    const [plain, own] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(plain).toMatchObject({ requestId: "req-1", traceId: "1-abc", message: "a" });
    expect(own).toMatchObject({ requestId: "other", traceId: "1-abc" });
    // Outside the invocation once it ended: no ids.
    expect(JSON.parse(linesOf(() => log.warn("c"))[0] as string)).not.toHaveProperty("requestId");
  });
});
