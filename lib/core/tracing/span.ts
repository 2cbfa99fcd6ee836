/**
 * A span that records (the OpenTelemetry API's `Span`): what an instrumentation sets on it is kept
 * until it ends, then handed to its provider (./provider.ts) as a finished span for the export at
 * the end of the invocation. Nothing here throws: tracing must never fail a request.
 */
import type { Attributes, AttributeValue, Exception, Link, Span, SpanAttributes, SpanContext, SpanKind, SpanStatus, TimeInput } from "@opentelemetry/api";

export interface SpanEvent {
  name: string;
  /** Epoch milliseconds, sub-millisecond in the fraction. */
  timeMs: number;
  attributes: Attributes;
}

export interface FinishedSpan {
  name: string;
  kind: SpanKind;
  context: SpanContext;
  parentSpanId: string | undefined;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  events: SpanEvent[];
  status: SpanStatus;
}

/** Epoch milliseconds now, to the microsecond (Date.now() has whole milliseconds only). */
export const nowMs = (): number => performance.timeOrigin + performance.now();

/** The API's time input (epoch milliseconds, a Date, or [seconds, nanoseconds]) as epoch milliseconds. */
export function msOf(time: TimeInput | undefined): number {
  if (time === undefined) return nowMs();
  if (typeof time === "number") return time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1e3 + time[1] / 1e6;
}

const isTime = (value: unknown): value is TimeInput => typeof value === "number" || value instanceof Date || Array.isArray(value);

export class RecordingSpan implements Span {
  private readonly attributes: Attributes = {};
  private readonly events: SpanEvent[] = [];
  private status: SpanStatus = { code: 0 };
  private readonly startMs: number;
  private ended = false;

  constructor(
    private name: string,
    private readonly kind: SpanKind,
    private readonly context: SpanContext,
    private readonly parentSpanId: string | undefined,
    private readonly onEnd: (span: FinishedSpan) => void,
    startTime?: TimeInput,
    attributes?: Attributes,
  ) {
    this.startMs = msOf(startTime);
    if (attributes) this.setAttributes(attributes);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (!this.ended && value !== undefined) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(name: string, attributesOrStartTime?: SpanAttributes | TimeInput, startTime?: TimeInput): this {
    if (this.ended) return this;
    const time = isTime(attributesOrStartTime) ? attributesOrStartTime : startTime;
    const attributes = isTime(attributesOrStartTime) || attributesOrStartTime === undefined ? {} : { ...attributesOrStartTime };
    this.events.push({ name, timeMs: msOf(time), attributes });
    return this;
  }

  // Links are not exported: no span of ours links another trace.
  addLink(_link: Link): this {
    return this;
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.ended) this.status = { ...status };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  /** Its type only: an exception's message can quote the request (DynamoDB's quote keys). */
  recordException(exception: Exception, time?: TimeInput): void {
    const type = typeof exception === "string" ? "Error" : (exception.name ?? (typeof exception.code === "string" ? exception.code : "Error"));
    this.addEvent("exception", { "exception.type": type }, time);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    try {
      const { name, kind, context, parentSpanId, startMs, attributes, events, status } = this;
      this.onEnd({ name, kind, context, parentSpanId, startMs, endMs: Math.max(startMs, msOf(endTime)), attributes, events, status });
    } catch {
      // A provider that failed: the trace loses a span, the request goes on.
    }
  }
}
