import middy from "@middy/core";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { perInvocation } from "../core/invocation.ts";
import { invocationMiddleware } from "../core/invocation-middleware.ts";
import { log } from "../core/log.ts";
import { countDeliveries } from "./delivery-report.ts";
import { deliverShares } from "./fanout-worker.ts";
import type { Realtime } from "./realtime.ts";

/** What the handler reads of Lambda's context (tests and the in-process queue call it without one). */
interface LambdaContext {
  awsRequestId?: string;
  getRemainingTimeInMillis?: () => number;
}

/**
 * The fan-out worker function: share messages from the fan-out queue (fanout-worker.ts), run by
 * the invocation middleware every function shares. middy's early timeout stays off, as the stream
 * function's: a share that ran out of time is handed back by the queue.
 */
export function fanoutWorkerHandler(realtime: () => Promise<Realtime>) {
  const chain = middy<SQSEvent, SQSBatchResponse, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(invocationMiddleware<SQSEvent, SQSBatchResponse>({ service: "fanout" }))
    .handler(async (event) => {
      const { response, report } = await deliverShares(await realtime(), event);
      countDeliveries(report);
      if (report.subscriptions > 0) log.info("subscription fan-out share", { messages: event.Records.length, ...report });
      return response;
    });
  return perInvocation((event: SQSEvent, lambda?: LambdaContext): Promise<SQSBatchResponse> => chain(event, lambda as Context));
}
