import type { Application } from "../core/application.ts";
import { fanoutOptions } from "./fanout-options.ts";
import { fanoutWorkerHandler } from "./fanout-handler.ts";
import { InProcessFanoutQueue } from "./local-queue.ts";
import { lazyRealtime } from "./local.ts";
import type { Realtime, RealtimeParts } from "./realtime.ts";
import { SqsFanoutQueue } from "./sqs-queue.ts";

/** Under `npm start`, how long a failed share waits before the in-process worker takes it again. */
export const LOCAL_VISIBILITY_TIMEOUT_MS = 1_000;

/**
 * The stream function's realtime face with its fan-out queue: the deployed stage's FIFO queue
 * (`FANOUT_QUEUE_URL`, set by the template), or under `npm start` (`IS_OFFLINE`) the same
 * messages worked off in-process by the same worker code; anywhere else (a host without the
 * queue) the stream function delivers every event itself.
 */
export function streamRealtime(app: Application, parts: RealtimeParts, env: NodeJS.ProcessEnv = process.env): () => Promise<Realtime> {
  const options = fanoutOptions(env);
  // Offline first: serverless offline passes the template's queue reference through unresolved.
  if (env.IS_OFFLINE !== "true") {
    const queue = env.FANOUT_QUEUE_URL ? { fanoutQueue: new SqsFanoutQueue(env.FANOUT_QUEUE_URL) } : {};
    return lazyRealtime(app, { ...parts, fanoutOptions: options, ...queue });
  }
  // A failed share is received again after a second, not SQS's six minutes: the stream function
  // works its record's shares off before the next record, so every later event would wait.
  const queue = new InProcessFanoutQueue({ workers: options.workers, maxReceives: options.maxReceives, visibilityTimeoutMs: LOCAL_VISIBILITY_TIMEOUT_MS });
  const realtime = lazyRealtime(app, { ...parts, fanoutOptions: options, fanoutQueue: queue });
  queue.attach(fanoutWorkerHandler(realtime));
  return realtime;
}
