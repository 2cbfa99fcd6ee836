/**
 * X-Ray's trace header as an OpenTelemetry propagator: `Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=1`
 * carries the same 128-bit trace id as W3C's (split after its first 8 digits) and the parent span.
 * Extracted from Lambda's `_X_AMZN_TRACE_ID` for the invocation's remote parent; injected into the
 * AWS SDK's requests, naming the call's span as the parent of the service's own node, which is how
 * AWS links DynamoDB, API Gateway and SES under the function in the trace.
 */
import { trace, type Context, type TextMapGetter, type TextMapPropagator, type TextMapSetter } from "@opentelemetry/api";
import { traceParentOf } from "../trace-header.ts";

export const XRAY_HEADER = "x-amzn-trace-id";

/** `1-5759e988-bd862e3fe1be46a994272793` as OpenTelemetry's `5759e988bd862e3fe1be46a994272793`. */
export const traceIdOfRoot = (root: string): string => root.slice(2, 10) + root.slice(11);
export const rootOfTraceId = (traceId: string): string => `1-${traceId.slice(0, 8)}-${traceId.slice(8)}`;

export const xrayPropagator: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const span = trace.getSpanContext(context);
    if (span === undefined || !trace.isSpanContextValid(span)) return;
    setter.set(carrier, "X-Amzn-Trace-Id", `Root=${rootOfTraceId(span.traceId)};Parent=${span.spanId};Sampled=${span.traceFlags & 1}`);
  },
  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const value = getter.get(carrier, XRAY_HEADER);
    const header = Array.isArray(value) ? value[0] : value;
    const parent = header === undefined ? undefined : traceParentOf(header);
    if (parent === undefined) return context;
    return trace.setSpanContext(context, { traceId: traceIdOfRoot(parent.root), spanId: parent.parent, traceFlags: parent.sampled ? 1 : 0, isRemote: true });
  },
  fields(): string[] {
    return [XRAY_HEADER];
  },
};
