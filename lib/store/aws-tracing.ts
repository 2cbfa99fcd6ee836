/**
 * Traces the AWS SDK's calls as OpenTelemetry client spans under the invocation's span when the
 * stage is deployed with tracing (`TRACING=true`, docs/operating.md "Tracing"): a middleware of our
 * own rather than OpenTelemetry's AWS SDK instrumentation, which patches modules at load and would
 * weigh on every cold start. Installed at client construction only when tracing is on, so a stage
 * without it pays nothing per call.
 */
import { defaultTextMapSetter, SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import type { MetadataBearer, MiddlewareStack, ResponseMetadata } from "@smithy/types";
import { invocationTrace } from "../core/tracing.ts";
import { xrayPropagator } from "../core/tracing/xray-propagator.ts";

/** What the middleware needs of an SDK client (DynamoDB, API Gateway management, SES v2, SQS). */
export interface TraceableClient<Input extends object, Output extends MetadataBearer> {
  middlewareStack: MiddlewareStack<Input, Output>;
  config: { serviceId: string; region: () => Promise<string> };
}

function tableNameOf(input: unknown): string | undefined {
  const name = (input as { TableName?: unknown } | undefined)?.TableName;
  return typeof name === "string" ? name : undefined;
}

function statusOf(response: unknown): number | undefined {
  const status = (response as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** What identifies the answer: AWS's request id, the HTTP status, the SDK's retries. Never its data. */
function answerOf(metadata: ResponseMetadata | undefined, status: number | undefined): Attributes {
  const attributes: Attributes = {};
  if (metadata?.requestId) attributes["aws.request_id"] = metadata.requestId;
  const code = status ?? metadata?.httpStatusCode;
  if (code !== undefined) attributes["http.response.status_code"] = code;
  if (typeof metadata?.attempts === "number") attributes["http.request.resend_count"] = Math.max(0, metadata.attempts - 1);
  return attributes;
}

/**
 * `env`: the environment the client is built for (its TRACING switch); a client cache keys on the
 * same switch (dynamodb-client.ts), so a client built with tracing off is never handed out with it on.
 */
export function traceAwsCalls<Input extends object, Output extends MetadataBearer>(
  client: TraceableClient<Input, Output>,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (env.TRACING !== "true") return;
  const service = client.config.serviceId;
  let region: string | undefined;
  let resolving: Promise<unknown> | undefined;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // The invocation's own span and its function's tracer: whichever function runs the call.
      const traced = invocationTrace();
      if (traced === undefined) return next(args);
      const { parent, tracer } = traced;
      // Known by the time the call ends: the SDK resolved it for the endpoint.
      resolving ??= client.config.region().then(
        (name) => (region = name),
        () => undefined,
      );
      const operation = (context.commandName ?? "").replace(/Command$/, "");
      const attributes: Attributes = { "rpc.system": "aws-api", "rpc.service": service, "rpc.method": operation };
      const table = tableNameOf(args.input);
      if (table !== undefined) attributes["aws.dynamodb.table_names"] = [table];
      const span = tracer.startSpan(`${service}.${operation}`, { kind: SpanKind.CLIENT, attributes }, parent);
      try {
        const headers = (args.request as { headers?: unknown } | undefined)?.headers;
        if (typeof headers === "object" && headers !== null) xrayPropagator.inject(trace.setSpan(parent, span), headers, defaultTextMapSetter);
      } catch {
        // Frozen headers: the call goes without the link, not without its answer.
      }
      try {
        const result = await next(args);
        const metadata = (result.output as Partial<MetadataBearer> | undefined)?.$metadata;
        span.setAttributes(answerOf(metadata, statusOf(result.response)));
        return result;
      } catch (error) {
        const failure = error as { name?: unknown; $metadata?: ResponseMetadata } | undefined;
        const name = typeof failure?.name === "string" ? failure.name : "Error";
        span.setAttributes({ ...answerOf(failure?.$metadata, undefined), "error.type": name });
        span.recordException({ name });
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        if (region !== undefined) span.setAttribute("cloud.region", region);
        span.end();
      }
    },
    // The build step runs once per call, outside the retry loop (finalizeRequest): one span covers
    // every attempt, and the header is set before the request is signed.
    { step: "build", name: "otelTracingMiddleware", override: true },
  );
}
