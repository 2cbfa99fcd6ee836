/**
 * The X-Ray subsegment document of one AWS SDK call (X-Ray's segment document format: an
 * independent subsegment, `type: "subsegment"` with the trace and parent it belongs under).
 * Only what identifies the call is recorded: service, operation, region, table, request id,
 * status, retries and the exception's name. Never the input or output (keys, item values) nor an
 * error's message, which can quote them.
 */
import { randomBytes } from "node:crypto";
import type { SampledTrace } from "../core/trace-header.ts";

/** What the tracing middleware saw of a call (lib/store/aws-tracing.ts). */
export interface TracedCall {
  id: string;
  trace: SampledTrace;
  /** The client's service id: `DynamoDB`, `ApiGatewayManagementApi`, `SESv2`. */
  service: string;
  /** The operation, as the API names it: `GetItem`, `PostToConnection`, `SendEmail`. */
  operation: string;
  region: string | undefined;
  tableName: string | undefined;
  /** Epoch seconds. */
  start: number;
  end: number;
  requestId: string | undefined;
  status: number | undefined;
  /** Attempts beyond the first (the SDK's retries, all inside this one subsegment). */
  retries: number | undefined;
  /** The error's name when the call failed (`ConditionalCheckFailedException`). */
  errorName: string | undefined;
}

/** A 64-bit id as X-Ray writes it (16 hex digits), for a subsegment or an exception. */
export function segmentId(): string {
  return randomBytes(8).toString("hex");
}

/** Refusals for rate rather than for the request itself: X-Ray's `throttle` flag. */
const THROTTLING = new Set([
  "ThrottlingException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "TooManyRequestsException",
  "LimitExceededException",
]);

/** X-Ray's outcome flags: 4xx is an error (429 and throttling also a throttle), 5xx or no answer a fault. */
function outcomeOf(call: TracedCall): { error?: true; throttle?: true; fault?: true } {
  if (call.errorName === undefined && (call.status === undefined || call.status < 400)) return {};
  if (call.status === 429 || (call.errorName !== undefined && THROTTLING.has(call.errorName))) return { error: true, throttle: true };
  if (call.status !== undefined && call.status >= 400 && call.status < 500) return { error: true };
  return { fault: true };
}

export function subsegmentOf(call: TracedCall): object {
  const aws: Record<string, string | number> = { operation: call.operation };
  if (call.region !== undefined) aws.region = call.region;
  if (call.requestId) aws.request_id = call.requestId;
  if (call.tableName !== undefined) aws.table_name = call.tableName;
  if (call.retries !== undefined) aws.retries = call.retries;
  return {
    name: call.service,
    id: call.id,
    trace_id: call.trace.root,
    parent_id: call.trace.parent,
    type: "subsegment",
    namespace: "aws",
    start_time: call.start,
    end_time: call.end,
    ...outcomeOf(call),
    ...(call.errorName === undefined ? {} : { cause: { exceptions: [{ id: segmentId(), type: call.errorName, remote: call.status !== undefined }] } }),
    aws,
    ...(call.status === undefined ? {} : { http: { response: { status: call.status } } }),
  };
}
