import { describe, expect, it } from "vitest";
import { subsegmentOf, type TracedCall } from "./aws-subsegment.ts";

const call: TracedCall = {
  id: "0123456789abcdef",
  trace: { root: "1-5759e988-bd862e3fe1be46a994272793", parent: "53995c3f42cd8ad8" },
  service: "ApiGatewayManagementApi",
  operation: "PostToConnection",
  region: "eu-west-1",
  tableName: undefined,
  start: 1_700_000_000.001,
  end: 1_700_000_000.042,
  requestId: "req-1",
  status: 200,
  retries: 0,
  errorName: undefined,
};

const outcome = (over: Partial<TracedCall>) => {
  const { error, throttle, fault, cause } = subsegmentOf({ ...call, ...over }) as {
    error?: boolean;
    throttle?: boolean;
    fault?: boolean;
    cause?: { exceptions: { type: string; remote: boolean }[] };
  };
  return { error, throttle, fault, type: cause?.exceptions[0]?.type, remote: cause?.exceptions[0]?.remote };
};

describe("subsegmentOf", () => {
  it("writes an independent subsegment of the aws namespace, without a table for a call that names none", () => {
    expect(subsegmentOf(call)).toEqual({
      name: "ApiGatewayManagementApi",
      id: call.id,
      trace_id: call.trace.root,
      parent_id: call.trace.parent,
      type: "subsegment",
      namespace: "aws",
      start_time: call.start,
      end_time: call.end,
      aws: { operation: "PostToConnection", region: "eu-west-1", request_id: "req-1", retries: 0 },
      http: { response: { status: 200 } },
    });
  });

  it("flags as X-Ray does: 4xx error, 429 or a throttling exception also throttle, 5xx or no answer fault", () => {
    expect(outcome({})).toEqual({});
    expect(outcome({ status: 410, errorName: "GoneException" })).toEqual({ error: true, type: "GoneException", remote: true });
    expect(outcome({ status: 429, errorName: "LimitExceededException" })).toEqual({
      error: true,
      throttle: true,
      type: "LimitExceededException",
      remote: true,
    });
    expect(outcome({ status: 400, errorName: "ProvisionedThroughputExceededException" })).toEqual({
      error: true,
      throttle: true,
      type: "ProvisionedThroughputExceededException",
      remote: true,
    });
    expect(outcome({ status: 500, errorName: "InternalServerError" })).toEqual({ fault: true, type: "InternalServerError", remote: true });
    expect(outcome({ status: undefined, errorName: "TimeoutError" })).toEqual({ fault: true, type: "TimeoutError", remote: false });
  });
});
