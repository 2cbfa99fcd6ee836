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
import { sendTraces, tracesEndpoint } from "./tracing/export.ts";
import { otlpBody } from "./tracing/otlp.ts";
import { BufferingTracerProvider } from "./tracing/provider.ts";
import { XRAY_HEADER, xrayPropagator } from "./tracing/xray-propagator.ts";

/** The instrumentation scope every span of ours is under. */
export const TRACER_NAME = "modelrest";

const DONE: Promise<void> = Promise.resolve();

let provider: BufferingTracerProvider | undefined;
let coldStart = true;

/**
 * Made at the first traced invocation and registered as the API's global provider, so a library
 * that traces through the OpenTelemetry API lands in the same export. Where one is registered
 * already (a layer's), ours still serves our own spans.
 */
export function tracer(): Tracer {
  if (provider === undefined) {
    provider = new BufferingTracerProvider();
    trace.setGlobalTracerProvider(provider);
  }
  return provider.getTracer();
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
 * Starts `invocation`'s span when it is traced: `traceId` is set only on a stage with tracing on
 * and under Lambda's header (./invocation-middleware.ts), and only a sampled header records.
 */
export function startInvocationSpan(invocation: Invocation, service: string): void {
  if (invocation.traceId === undefined) return;
  try {
    const parent = xrayPropagator.extract(ROOT_CONTEXT, { [XRAY_HEADER]: process.env._X_AMZN_TRACE_ID }, defaultTextMapGetter);
    const remote = trace.getSpanContext(parent);
    if (remote === undefined || (remote.traceFlags & 1) === 0) return;
    const attributes: Attributes = { "faas.coldstart": coldStart, "modelrest.service": service };
    if (invocation.requestId !== undefined) attributes["faas.invocation_id"] = invocation.requestId;
    coldStart = false;
    invocation.span = tracer().startSpan(service, { kind: SpanKind.SERVER, attributes }, parent);
  } catch {
    // No span: the invocation goes on untraced.
  }
}

/** The current invocation's span as the parent of what it calls, or undefined when it is not traced. */
export function invocationContext(): Context | undefined {
  const span = currentInvocation().span;
  return span === undefined ? undefined : trace.setSpan(ROOT_CONTEXT, span);
}

/**
 * Ends `invocation`'s span (once) with how it ended, named by its route where it has one, and
 * exports the spans ended since the last export. Resolves when they are sent or dropped; never rejects.
 */
export function endInvocationSpan(invocation: Invocation, outcome: { route?: string; status?: number }, failed = false): Promise<void> {
  const span = invocation.span;
  if (span === undefined) return DONE;
  invocation.span = undefined;
  try {
    if (outcome.route !== undefined) span.updateName(outcome.route).setAttribute("http.route", outcome.route);
    if (outcome.status !== undefined) span.setAttribute("http.response.status_code", outcome.status);
    if (failed || (outcome.status !== undefined && outcome.status >= 500)) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    return flushTraces();
  } catch {
    return DONE;
  }
}

/** Exports the spans ended since the last export, if any. */
export function flushTraces(): Promise<void> {
  const spans = provider?.take() ?? [];
  const endpoint = spans.length === 0 ? undefined : tracesEndpoint();
  return endpoint === undefined ? DONE : sendTraces(otlpBody(spans, resource(), TRACER_NAME), endpoint);
}
