/**
 * Traces the AWS SDK's calls as X-Ray subsegments when the stage is deployed with tracing
 * (`TRACING=true`, docs/operating.md "Tracing"): our own middleware and UDP sender instead of the
 * X-Ray SDK, which would weigh on every cold start. Installed at client construction only when
 * tracing is on, so a stage without it pays nothing per call.
 */
import type { MetadataBearer, MiddlewareStack, ResponseMetadata } from "@smithy/types";
import { sampledTrace, type SampledTrace } from "../core/trace-header.ts";
import { sendToDaemon } from "../core/xray-daemon.ts";
import { segmentId, subsegmentOf, type TracedCall } from "./aws-subsegment.ts";

/** What the middleware needs of an SDK client (DynamoDB, API Gateway management, SES v2). */
export interface TraceableClient<Input extends object, Output extends MetadataBearer> {
  middlewareStack: MiddlewareStack<Input, Output>;
  config: { serviceId: string; region: () => Promise<string> };
}

const TRACE_HEADER = "X-Amzn-Trace-Id";

/**
 * Names the subsegment as the downstream call's parent, as the X-Ray SDK does, so AWS links the
 * service's node under it. The build step's request is the SDK's HttpRequest; anything else is
 * left alone.
 */
function markRequest(request: unknown, trace: SampledTrace, id: string): void {
  try {
    const headers = (request as { headers?: unknown } | undefined)?.headers;
    if (typeof headers === "object" && headers !== null) (headers as Record<string, string>)[TRACE_HEADER] = `Root=${trace.root};Parent=${id};Sampled=1`;
  } catch {
    // Frozen headers: the call goes without the link, not without its answer.
  }
}

function tableNameOf(input: unknown): string | undefined {
  const name = (input as { TableName?: unknown } | undefined)?.TableName;
  return typeof name === "string" ? name : undefined;
}

function statusOf(response: unknown): number | undefined {
  const status = (response as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

const retriesOf = (metadata: ResponseMetadata | undefined): number | undefined =>
  typeof metadata?.attempts === "number" ? Math.max(0, metadata.attempts - 1) : undefined;

export function traceAwsCalls<Input extends object, Output extends MetadataBearer>(client: TraceableClient<Input, Output>): void {
  if (process.env.TRACING !== "true") return;
  const service = client.config.serviceId;
  let region: Promise<string | undefined> | undefined;
  /** Sent once the client's region is known, off the request's path; never rejects. */
  const send = (call: Omit<TracedCall, "region">): void => {
    try {
      region ??= client.config.region().catch(() => undefined);
      void region.then(
        (name) => sendToDaemon(subsegmentOf({ ...call, region: name })),
        () => {},
      );
    } catch {
      // A region provider that throws: the call goes untraced.
    }
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const trace = sampledTrace();
      if (!trace) return next(args);
      const id = segmentId();
      const operation = (context.commandName ?? "").replace(/Command$/, "");
      const start = Date.now() / 1000;
      const base = { id, trace, service, operation, start, tableName: tableNameOf(args.input) };
      markRequest(args.request, trace, id);
      try {
        const result = await next(args);
        const metadata = (result.output as Partial<MetadataBearer> | undefined)?.$metadata;
        send({
          ...base,
          end: Date.now() / 1000,
          requestId: metadata?.requestId,
          status: statusOf(result.response) ?? metadata?.httpStatusCode,
          retries: retriesOf(metadata),
          errorName: undefined,
        });
        return result;
      } catch (error) {
        const failure = error as { name?: unknown; $metadata?: ResponseMetadata } | undefined;
        const metadata = failure?.$metadata;
        send({
          ...base,
          end: Date.now() / 1000,
          requestId: metadata?.requestId,
          status: metadata?.httpStatusCode,
          retries: retriesOf(metadata),
          errorName: typeof failure?.name === "string" ? failure.name : "Error",
        });
        throw error;
      }
    },
    // The build step runs once per call, outside the retry loop (finalizeRequest): one subsegment
    // covers every attempt, and the header is set before the request is signed.
    { step: "build", name: "xrayTracingMiddleware", override: true },
  );
}
