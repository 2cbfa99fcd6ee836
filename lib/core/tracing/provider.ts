/**
 * A small tracer provider for the OpenTelemetry API: spans are made under the context's span (a
 * sampled parent records, an unsampled one yields a span that records nothing), kept once ended,
 * and taken by the export at the end of each invocation (../tracing.ts). The SDK's provider would
 * bring its batching processor, resource detection and timers into every bundle; a Lambda
 * invocation needs one export, awaited before it answers, and nothing running between them.
 */
import {
  context as contextApi,
  SpanKind,
  trace,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import { randomFillSync } from "node:crypto";
import { RecordingSpan, type FinishedSpan } from "./span.ts";

/** Past this many unexported spans (an invocation that never ended, a loop of calls), later ones are dropped. */
const MAX_BUFFERED = 2_000;

/** Ids from one pooled buffer: a span id (8 bytes) costs no call into OpenSSL. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}

export const newSpanId = (): string => randomHex(8);
export const newTraceId = (): string => randomHex(16);

export class BufferingTracerProvider implements TracerProvider {
  private finished: FinishedSpan[] = [];
  private readonly tracer: Tracer;

  constructor() {
    const keep = (span: FinishedSpan): void => {
      if (this.finished.length < MAX_BUFFERED) this.finished.push(span);
    };
    this.tracer = {
      startSpan: (name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span => {
        const parent = options.root ? undefined : trace.getSpanContext(context);
        if (parent !== undefined && !trace.isSpanContextValid(parent)) return trace.wrapSpanContext(parent);
        // A parent that was not sampled (`Sampled=0`): its children are not either, and cost nothing.
        if (parent !== undefined && (parent.traceFlags & 1) === 0) return trace.wrapSpanContext({ ...parent, spanId: newSpanId(), isRemote: false });
        const spanContext: SpanContext = { traceId: parent?.traceId ?? newTraceId(), spanId: newSpanId(), traceFlags: 1 };
        return new RecordingSpan(name, options.kind ?? SpanKind.INTERNAL, spanContext, parent?.spanId, keep, options.startTime, options.attributes);
      },
      startActiveSpan: <F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> => {
        const fn = rest.pop() as F;
        const [options, context = contextApi.active()] = rest as [SpanOptions | undefined, Context | undefined];
        const span = this.tracer.startSpan(name, options, context);
        return contextApi.with(trace.setSpan(context, span), fn as (span: Span) => ReturnType<F>, undefined, span);
      },
    };
  }

  getTracer(): Tracer {
    return this.tracer;
  }

  /** The spans ended since the last call, handed over once. */
  take(): FinishedSpan[] {
    const taken = this.finished;
    this.finished = [];
    return taken;
  }
}
