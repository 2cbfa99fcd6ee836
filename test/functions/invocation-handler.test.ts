import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { invocationHandler, type EntryKind } from "../../lib/core/invocation-handler.ts";
import { currentInvocation, type Invocation } from "../../lib/core/invocation.ts";
import { timeLeftMs } from "../../lib/core/invocation-deadline.ts";
import { log } from "../../lib/core/log.ts";
import { countEvent } from "../../lib/core/metrics.ts";
import { parseEmf, type EmfLine } from "../support/emf.ts";
import { withEnvironment } from "../support/offline-env.ts";

/** An entry kind no function has yet: what a new face would write. */
interface Upload {
  id: string;
  fail?: boolean;
  hold?: Promise<void>;
}

/** What the handler saw of its invocation while it ran. */
interface Seen {
  invocation: Invocation;
  requestId: string | undefined;
  opened: Invocation["opened"];
  leftMs: number;
}

const metricsDir = mkdtempSync(join(tmpdir(), "invocation-handler-"));
const metricsFile = join(metricsDir, "metrics.jsonl");

// The metric lines to a file of this test's own, read back below: set before the tests build their
// handlers (each reads it as it is built), put back after the file.
withEnvironment({ METRICS_FILE: metricsFile });
afterAll(() => rmSync(metricsDir, { recursive: true, force: true }));

const metricLines = (): EmfLine[] =>
  readFileSync(metricsFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map(parseEmf)
    .filter((line) => line.Service === "upload");

function uploadHandler() {
  const seen: Seen[] = [];
  const closed: { id: string; response: unknown; requestId: string | undefined }[] = [];
  const kind: EntryKind<Upload, { stored: string }> = {
    service: "upload",
    timeoutEarlyInMillis: 0,
    requestIdOf: (event) => `event-${event.id}`,
    outcome: (_event, response) => ({ route: "upload", status: response === undefined ? 500 : 200 }),
    line: {
      message: "upload",
      fields: (event, response, measured) => {
        closed.push({ id: event.id, response, requestId: measured.requestId });
        return { id: event.id };
      },
    },
  };
  const handler = invocationHandler(kind, async (event) => {
    const invocation = currentInvocation();
    seen.push({ invocation, requestId: invocation.requestId, opened: invocation.opened, leftMs: timeLeftMs() });
    countEvent("StreamRecords");
    log.warn("uploading", { id: event.id });
    await event.hold;
    if (event.fail) throw new Error("disk on fire");
    return { stored: event.id };
  });
  return { handler, seen, closed };
}

describe("invocationHandler, the one way a function's handler is made", () => {
  it("opens a new entry kind's invocation (its own state, ids on its log lines, deadline) and closes it (line, metrics, state), answered or thrown", async () => {
    const { handler, seen, closed } = uploadHandler();
    const ambient = currentInvocation();
    const stderr: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
    try {
      expect(await handler({ id: "a" }, { awsRequestId: "req-a", getRemainingTimeInMillis: () => 5_000 })).toEqual({ stored: "a" });
      await expect(handler({ id: "b", fail: true })).rejects.toThrow("disk on fire");
    } finally {
      spy.mockRestore();
    }
    // Opened: state of its own, Lambda's request id (else the event's), Lambda's deadline.
    expect(seen.map((s) => [s.requestId, s.opened])).toEqual([
      ["req-a", "slot"],
      ["event-b", "slot"],
    ]);
    expect(seen[0]?.invocation).not.toBe(ambient);
    expect(seen[1]?.invocation).not.toBe(seen[0]?.invocation);
    expect(seen[0]?.leftMs).toBeGreaterThan(4_000);
    expect(seen[0]?.leftMs).toBeLessThanOrEqual(5_000);
    expect(seen[1]?.leftMs).toBe(Number.POSITIVE_INFINITY);
    expect(stderr.filter((l) => l.includes("uploading")).map((l) => /requestId"?[=:]"?([^\s",}]+)/.exec(l)?.[1])).toEqual(["req-a", "event-b"]);
    // Closed, the throw included: its line read the response (none for the throw), its metrics written, its state given back.
    expect(closed).toEqual([
      { id: "a", response: { stored: "a" }, requestId: "req-a" },
      { id: "b", response: undefined, requestId: "event-b" },
    ]);
    expect(metricLines().map((l) => [l.requestId, l.StatusClass, l.Requests, l.StreamRecords])).toEqual([
      ["req-a", "2xx", 1, 1],
      ["event-b", "5xx", 1, 1],
    ]);
    for (const { invocation } of seen) expect([invocation.ended, invocation.opened]).toEqual([true, undefined]);
    expect(currentInvocation()).toBe(ambient);
  });

  it("gives invocations that overlap each their own state, and closes both", async () => {
    const { handler, seen, closed } = uploadHandler();
    let release = (): void => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const first = handler({ id: "first", hold }, { awsRequestId: "req-1" });
    const second = handler({ id: "second" }, { awsRequestId: "req-2" });
    await second;
    // The first still runs: its state is its own, not the second's.
    expect(currentInvocation()).toBe(seen[0]?.invocation);
    release();
    await first;
    spy.mockRestore();
    expect(seen.map((s) => [s.requestId, s.opened])).toEqual([
      ["req-1", "slot"],
      ["req-2", "context"],
    ]);
    expect(closed.map((c) => c.requestId).sort()).toEqual(["req-1", "req-2"]);
    for (const { invocation } of seen) expect([invocation.ended, invocation.opened]).toEqual([true, undefined]);
    expect(currentInvocation().opened).toBeUndefined();
  });
});
