import { afterEach, describe, expect, it } from "vitest";
import { sampledTrace, sampledTraceOf, traceRoot } from "./trace-header.ts";
import { daemonAddressOf } from "./xray-daemon.ts";

const ROOT = "1-5759e988-bd862e3fe1be46a994272793";
const PARENT = "53995c3f42cd8ad8";

describe("sampledTraceOf", () => {
  it("reads root and parent of a sampled header, in any order, with other fields beside", () => {
    expect(sampledTraceOf(`Root=${ROOT};Parent=${PARENT};Sampled=1`)).toEqual({ root: ROOT, parent: PARENT });
    expect(sampledTraceOf(`Sampled=1;Lineage=a87bd80c:0;Parent=${PARENT};Root=${ROOT}`)).toEqual({ root: ROOT, parent: PARENT });
  });

  it("gives nothing for an unsampled or undecided trace: X-Ray would drop its documents", () => {
    expect(sampledTraceOf(`Root=${ROOT};Parent=${PARENT};Sampled=0`)).toBeUndefined();
    expect(sampledTraceOf(`Root=${ROOT};Parent=${PARENT};Sampled=?`)).toBeUndefined();
    expect(sampledTraceOf(`Root=${ROOT};Parent=${PARENT}`)).toBeUndefined();
  });

  it("gives nothing without a parent: an independent subsegment needs the segment it goes under", () => {
    expect(sampledTraceOf(`Root=${ROOT};Sampled=1`)).toBeUndefined();
    expect(sampledTraceOf(`Root=${ROOT};Parent=;Sampled=1`)).toBeUndefined();
  });

  it("gives nothing for a malformed root or parent, or no fields at all", () => {
    expect(sampledTraceOf(`Root=2-5759e988-bd862e3fe1be46a994272793;Parent=${PARENT};Sampled=1`)).toBeUndefined();
    expect(sampledTraceOf(`Root=1-5759e988;Parent=${PARENT};Sampled=1`)).toBeUndefined();
    expect(sampledTraceOf(`Root=${ROOT};Parent=53995c3f42cd8ad;Sampled=1`)).toBeUndefined();
    expect(sampledTraceOf(`Root=${ROOT};Parent=53995C3F42CD8AD8;Sampled=1`)).toBeUndefined();
    expect(sampledTraceOf(`Root=${ROOT};Parent=${PARENT}","x":"y;Sampled=1`)).toBeUndefined();
    expect(sampledTraceOf("garbage")).toBeUndefined();
    expect(sampledTraceOf(";;=;")).toBeUndefined();
  });
});

describe("sampledTrace", () => {
  const before = process.env._X_AMZN_TRACE_ID;
  afterEach(() => {
    if (before === undefined) delete process.env._X_AMZN_TRACE_ID;
    else process.env._X_AMZN_TRACE_ID = before;
  });

  it("follows the header as Lambda changes it between invocations", () => {
    delete process.env._X_AMZN_TRACE_ID;
    expect(sampledTrace()).toBeUndefined();
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=1`;
    expect(sampledTrace()).toEqual({ root: ROOT, parent: PARENT });
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=0`;
    expect(sampledTrace()).toBeUndefined();
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=aaaaaaaaaaaaaaaa;Sampled=1`;
    expect(sampledTrace()).toEqual({ root: ROOT, parent: "aaaaaaaaaaaaaaaa" });
  });

  it("gives the log lines the trace id, sampled or not, from the same parse; a malformed root gives none", () => {
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Sampled=0`;
    expect(traceRoot()).toBe(ROOT);
    expect(sampledTrace()).toBeUndefined();
    process.env._X_AMZN_TRACE_ID = "Root=not-a-trace;Parent=aaaaaaaaaaaaaaaa;Sampled=1";
    expect(traceRoot()).toBeUndefined();
    delete process.env._X_AMZN_TRACE_ID;
    expect(traceRoot()).toBeUndefined();
  });
});

describe("daemonAddressOf", () => {
  it("reads host:port, and the UDP half of the daemon's two-protocol form", () => {
    expect(daemonAddressOf("169.254.79.129:2000")).toMatchObject({ host: "169.254.79.129", port: 2000 });
    expect(daemonAddressOf("tcp:127.0.0.1:2000 udp:127.0.0.2:2001")).toMatchObject({ host: "127.0.0.2", port: 2001 });
  });

  it("falls back to the daemon's default address on a value it cannot use", () => {
    for (const text of ["", "localhost", ":2000", "host:0", "host:70000", "host:port"])
      expect(daemonAddressOf(text)).toMatchObject({ host: "127.0.0.1", port: 2000 });
  });
});
