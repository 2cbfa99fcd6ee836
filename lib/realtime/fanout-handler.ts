import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { enterInvocation, leaveInvocation } from "../core/invocation-deadline.ts";
import { log, setLogCorrelation } from "../core/log.ts";
import { countEvent, finishInvocation, startInvocation } from "../core/metrics.ts";
import { deliverShares } from "./fanout-worker.ts";
import type { Realtime } from "./realtime.ts";

interface LambdaContext {
  awsRequestId?: string;
  getRemainingTimeInMillis?: () => number;
}

/** The fan-out worker function: share messages from the fan-out queue (fanout-worker.ts). */
export function fanoutWorkerHandler(realtime: () => Promise<Realtime>) {
  return async (event: SQSEvent, lambda?: LambdaContext): Promise<SQSBatchResponse> => {
    const started = performance.now();
    enterInvocation(lambda?.getRemainingTimeInMillis?.());
    setLogCorrelation(lambda?.awsRequestId, startInvocation());
    try {
      const { response, report } = await deliverShares(await realtime(), event);
      countEvent("Deliveries", report.delivered);
      countEvent("StaleConnections", report.gone);
      if (report.subscriptions > 0) log.info("subscription fan-out share", { messages: event.Records.length, ...report });
      return response;
    } finally {
      finishInvocation({ service: "fanout", latencyMs: performance.now() - started, requestId: lambda?.awsRequestId });
      setLogCorrelation();
      leaveInvocation();
    }
  };
}
