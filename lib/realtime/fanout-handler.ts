import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { invocationHandler } from "../core/invocation-handler.ts";
import { log } from "../core/log.ts";
import { countDeliveries } from "./delivery-report.ts";
import { deliverShares } from "./fanout-worker.ts";
import type { Realtime } from "./realtime.ts";

/**
 * The fan-out worker function: share messages from the fan-out queue (fanout-worker.ts), each
 * batch an invocation (invocationHandler, as every function). middy's early timeout stays off, as the stream
 * function's: a share that ran out of time is handed back by the queue.
 */
export function fanoutWorkerHandler(realtime: () => Promise<Realtime>) {
  return invocationHandler<SQSEvent, SQSBatchResponse>({ service: "fanout", timeoutEarlyInMillis: 0 }, async (event) => {
    const { response, report } = await deliverShares(await realtime(), event);
    countDeliveries(report);
    if (report.subscriptions > 0) log.info("subscription fan-out share", { messages: event.Records.length, ...report });
    return response;
  });
}
