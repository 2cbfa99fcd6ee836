/**
 * Finished spans as an OTLP/HTTP JSON request body (ExportTraceServiceRequest): X-Ray's OTLP
 * endpoint takes JSON as well as protobuf, and JSON needs no encoder in the bundle. In OTLP's JSON
 * mapping ids are hex, times are nanoseconds as decimal strings, and enums are numbers.
 */
import type { Attributes, AttributeValue } from "@opentelemetry/api";
import type { FinishedSpan } from "./span.ts";

type AnyValue = { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number } | { arrayValue: { values: AnyValue[] } };

function valueOf(value: AttributeValue | null | undefined): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: (value as unknown[]).map((v) => valueOf(v as AttributeValue)) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: String(value ?? "") };
}

export const attributesOf = (attributes: Attributes): { key: string; value: AnyValue }[] =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: valueOf(value) }));

/** Epoch milliseconds (to the microsecond) as OTLP's nanoseconds, without a float's rounding past 2^53. */
export function nanosOf(ms: number): string {
  const whole = Math.floor(ms);
  const fraction = Math.min(999_999, Math.round((ms - whole) * 1e6));
  return `${whole}${String(fraction).padStart(6, "0")}`;
}

/** The API's span kinds (INTERNAL 0 ... CONSUMER 4) are OTLP's less one: OTLP keeps 0 for unspecified. */
const kindOf = (kind: number): number => kind + 1;

export function otlpBody(spans: FinishedSpan[], resource: Attributes, scope: string): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attributesOf(resource) },
        scopeSpans: [
          {
            scope: { name: scope },
            spans: spans.map((span) => ({
              traceId: span.context.traceId,
              spanId: span.context.spanId,
              ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
              flags: span.context.traceFlags,
              name: span.name,
              kind: kindOf(span.kind),
              startTimeUnixNano: nanosOf(span.startMs),
              endTimeUnixNano: nanosOf(span.endMs),
              attributes: attributesOf(span.attributes),
              events: span.events.map((event) => ({ name: event.name, timeUnixNano: nanosOf(event.timeMs), attributes: attributesOf(event.attributes) })),
              status: span.status.message === undefined ? { code: span.status.code } : { code: span.status.code, message: span.status.message },
            })),
          },
        ],
      },
    ],
  });
}
