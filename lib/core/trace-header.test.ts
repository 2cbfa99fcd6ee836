import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { traceParentOf, traceRoot } from "./trace-header.ts";
import { xrayPropagator } from "./tracing/xray-propagator.ts";

const ROOT = "1-5759e988-bd862e3fe1be46a994272793";
const PARENT = "53995c3f42cd8ad8";

describe("traceParentOf", () => {
  it("reads root, parent and the sampling decision, in any order, with other fields beside", () => {
    expect(traceParentOf(`Root=${ROOT};Parent=${PARENT};Sampled=1`)).toEqual({ root: ROOT, parent: PARENT, sampled: true });
    expect(traceParentOf(`Sampled=1;Lineage=a87bd80c:0;Parent=${PARENT};Root=${ROOT}`)).toEqual({ root: ROOT, parent: PARENT, sampled: true });
  });

  it("takes an unsampled or undecided trace as not sampled: X-Ray would drop its spans", () => {
    for (const sampled of ["Sampled=0", "Sampled=?", ""])
      expect(traceParentOf(`Root=${ROOT};Parent=${PARENT};${sampled}`)).toEqual({ root: ROOT, parent: PARENT, sampled: false });
  });

  it("gives nothing without a parent, or for a malformed root or parent, or no fields at all", () => {
    for (const header of [
      `Root=${ROOT};Sampled=1`,
      `Root=${ROOT};Parent=;Sampled=1`,
      `Root=2-5759e988-bd862e3fe1be46a994272793;Parent=${PARENT};Sampled=1`,
      `Root=1-5759e988;Parent=${PARENT};Sampled=1`,
      `Root=${ROOT};Parent=53995c3f42cd8ad;Sampled=1`,
      `Root=${ROOT};Parent=53995C3F42CD8AD8;Sampled=1`,
      `Root=${ROOT};Parent=${PARENT}","x":"y;Sampled=1`,
      "garbage",
      ";;=;",
    ])
      expect(traceParentOf(header)).toBeUndefined();
  });
});

describe("traceRoot", () => {
  const before = process.env._X_AMZN_TRACE_ID;
  afterEach(() => {
    if (before === undefined) delete process.env._X_AMZN_TRACE_ID;
    else process.env._X_AMZN_TRACE_ID = before;
  });

  it("gives the log lines the trace id, sampled or not, as Lambda changes the header; a malformed root gives none", () => {
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Sampled=0`;
    expect(traceRoot()).toBe(ROOT);
    process.env._X_AMZN_TRACE_ID = "Root=1-5759e989-bd862e3fe1be46a994272793;Parent=aaaaaaaaaaaaaaaa;Sampled=1";
    expect(traceRoot()).toBe("1-5759e989-bd862e3fe1be46a994272793");
    process.env._X_AMZN_TRACE_ID = "Root=not-a-trace;Parent=aaaaaaaaaaaaaaaa;Sampled=1";
    expect(traceRoot()).toBeUndefined();
    delete process.env._X_AMZN_TRACE_ID;
    expect(traceRoot()).toBeUndefined();
  });
});

describe("the X-Ray propagator", () => {
  it("extracts the header as a remote parent with X-Ray's trace id in OpenTelemetry's form, and injects it back", () => {
    const context = xrayPropagator.extract(ROOT_CONTEXT, { "x-amzn-trace-id": `Root=${ROOT};Parent=${PARENT};Sampled=1` }, defaultTextMapGetter);
    expect(trace.getSpanContext(context)).toEqual({ traceId: "5759e988bd862e3fe1be46a994272793", spanId: PARENT, traceFlags: 1, isRemote: true });
    const headers: Record<string, string> = {};
    xrayPropagator.inject(context, headers, defaultTextMapSetter);
    expect(headers).toEqual({ "X-Amzn-Trace-Id": `Root=${ROOT};Parent=${PARENT};Sampled=1` });
  });

  it("keeps an unsampled decision, and leaves the context alone for a header it cannot read", () => {
    const unsampled = xrayPropagator.extract(ROOT_CONTEXT, { "x-amzn-trace-id": `Root=${ROOT};Parent=${PARENT};Sampled=0` }, defaultTextMapGetter);
    expect(trace.getSpanContext(unsampled)?.traceFlags).toBe(0);
    for (const carrier of [{}, { "x-amzn-trace-id": "garbage" }]) {
      const context = xrayPropagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
      expect(trace.getSpanContext(context)).toBeUndefined();
      const headers: Record<string, string> = {};
      xrayPropagator.inject(context, headers, defaultTextMapSetter);
      expect(headers).toEqual({});
    }
  });
});
