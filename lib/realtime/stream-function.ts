import { composeApplication } from "../core/compose.ts";
import { streamHandler } from "./handler.ts";
import { streamRealtime } from "./fanout-env.ts";
import type { RealtimeFunctionParts } from "./websocket-function.ts";

export type StreamFunctionParts = RealtimeFunctionParts & {
  /** The tables' name prefix, which tells a model's stream events from the framework's own tables. */
  tablePrefix: () => string;
};

/** The models' DynamoDB streams: every write, by whichever process, becomes a lifecycle event delivered to subscribers. */
export async function streamFunction(parts: StreamFunctionParts) {
  const app = await composeApplication("stream", parts, ["secrets", "store", "validators", "listing"]);
  // With a fan-out queue (deployed: FANOUT_QUEUE_URL; npm start: in-process) it plans, workers deliver.
  // Under npm start the stream plugin retries only a batch that threw (handler.ts, StreamHandlerOptions).
  return streamHandler(app, streamRealtime(app, { assumeValidSchema: parts.assumeValidSchema ?? false }), parts.tablePrefix, {
    failWholeBatch: process.env.IS_OFFLINE === "true",
  });
}
