/**
 * Tracing on OpenTelemetry, for a stage deployed with `--param tracing=true` (docs/operating.md,
 * "Tracing"). invocationHandler (invocation-handler.ts) starts each sampled invocation's span under Lambda's own
 * segment (the remote parent in `_X_AMZN_TRACE_ID`) and ends it, then awaits the export of the
 * invocation's spans, its own and its AWS SDK calls' (lib/store/aws-tracing.ts), to X-Ray's OTLP
 * endpoint: Lambda freezes the process once the handler answers, so nothing is left to a timer.
 * Off, or unsampled, nothing here runs past one check per invocation.
 */
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Tracer } from "@opentelemetry/api";
import { currentInvocation, type Invocation } from "./invocation.ts";
import { TraceExporter, tracesEndpoint } from "./tracing/export.ts";
import { otlpBody } from "./tracing/otlp.ts";
import { BufferingTracerProvider } from "./tracing/provider.ts";
import { XRAY_HEADER, xrayPropagator } from "./tracing/xray-propagator.ts";

/** The instrumentation scope every span of ours is under. */
export const TRACER_NAME = "modelrest";

const DONE: Promise<void> = Promise.resolve();

/**
 * One built function's tracing (invocationHandler keeps it, as a Lambda instance keeps its state):
 * the provider its spans are made and buffered in and the exporter that sends them, made at its
 * first traced invocation. Its invocations and their SDK calls make their spans here (through the
 * invocation, invocationTrace()), so two functions built in one process (the tests) never hand
 * each other spans, whatever was built before.
 *
 * The provider is also offered as the OpenTelemetry API's global one, so a library that traces
 * through the API lands in the same export: a convenience only, global by OpenTelemetry's design
 * and taken by the first to register (a Lambda instance runs one function, so it is that one's;
 * where a layer registered one first, ours still serves our own spans). Nothing of ours reads it back.
 */
export class FunctionTraces {
  readonly provider = new BufferingTracerProvider();
  readonly exporter = new TraceExporter();

  constructor() {
    trace.setGlobalTracerProvider(this.provider);
  }

  tracer(): Tracer {
    return this.provider.getTracer();
  }

  /** Exports the spans ended since the last export, if any. */
  flush(): Promise<void> {
    const spans = this.provider.take();
    const endpoint = spans.length === 0 ? undefined : tracesEndpoint();
    return endpoint === undefined ? DONE : this.exporter.send(otlpBody(spans, resource(), TRACER_NAME), endpoint);
  }
}

/** What a built function keeps of its tracing: none until its first traced invocation. */
export interface TracedFunction {
  traces: FunctionTraces | undefined;
}

function resource(): Attributes {
  const env = process.env;
  return {
    "service.name": env.AWS_LAMBDA_FUNCTION_NAME ?? TRACER_NAME,
    "cloud.provider": "aws",
    "cloud.platform": "aws_lambda",
    ...(env.AWS_REGION ? { "cloud.region": env.AWS_REGION } : {}),
    ...(env.AWS_LAMBDA_FUNCTION_NAME ? { "faas.name": env.AWS_LAMBDA_FUNCTION_NAME } : {}),
    ...(env.AWS_LAMBDA_FUNCTION_VERSION ? { "faas.version": env.AWS_LAMBDA_FUNCTION_VERSION } : {}),
  };
}

/**
 * Starts `invocation`'s span when it is traced, in `owner`'s traces: `traceId` is set only on a
 * stage with tracing on and under Lambda's header (./invocation-lifecycle.ts), and only a sampled
 * header records. `coldStart`: the function's first invocation.
 */
export function startInvocationSpan(invocation: Invocation, service: string, owner: TracedFunction, coldStart: boolean): void {
  if (invocation.traceId === undefined) return;
  try {
    const parent = xrayPropagator.extract(ROOT_CONTEXT, { [XRAY_HEADER]: process.env._X_AMZN_TRACE_ID }, defaultTextMapGetter);
    const remote = trace.getSpanContext(parent);
    if (remote === undefined || (remote.traceFlags & 1) === 0) return;
    const attributes: Attributes = { "faas.coldstart": coldStart, "modelrest.service": service };
    if (invocation.requestId !== undefined) attributes["faas.invocation_id"] = invocation.requestId;
    const traces = (owner.traces ??= new FunctionTraces());
    invocation.span = traces.tracer().startSpan(service, { kind: SpanKind.SERVER, attributes }, parent);
    invocation.traces = traces;
  } catch {
    // No span: the invocation goes on untraced.
  }
}

/**
 * The current invocation's span as the parent of what it calls, and the tracer of the function it
 * runs in, or undefined when it is not traced.
 */
export function invocationTrace(): { parent: Context; tracer: Tracer } | undefined {
  const { span, traces } = currentInvocation();
  return span === undefined || traces === undefined ? undefined : { parent: trace.setSpan(ROOT_CONTEXT, span), tracer: traces.tracer() };
}

/**
 * Ends `invocation`'s span (once) with how it ended, named by its route where it has one, and
 * exports the spans ended since the last export. Resolves when they are sent or dropped; never rejects.
 */
export function endInvocationSpan(invocation: Invocation, outcome: { route?: string; status?: number }, failed = false): Promise<void> {
  const { span, traces } = invocation;
  if (span === undefined || traces === undefined) return DONE;
  invocation.span = undefined;
  invocation.traces = undefined;
  try {
    if (outcome.route !== undefined) span.updateName(outcome.route).setAttribute("http.route", outcome.route);
    if (outcome.status !== undefined) span.setAttribute("http.response.status_code", outcome.status);
    if (failed || (outcome.status !== undefined && outcome.status >= 500)) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    return traces.flush();
  } catch {
    return DONE;
  }
}
