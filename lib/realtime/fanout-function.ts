import { composeApplication } from "../core/compose.ts";
import { fanoutWorkerHandler } from "./fanout-handler.ts";
import { fanoutOptions } from "./fanout-options.ts";
import { lazyRealtime } from "./local.ts";
import type { RealtimeFunctionParts } from "./websocket-function.ts";

/**
 * The fan-out worker (functions/fanout.ts): each message of the fan-out queue is one share of one
 * event's subscribers, delivered with each subscriber's permission and filter checked here.
 */
export async function fanoutFunction(parts: RealtimeFunctionParts) {
  const app = await composeApplication("fan-out worker", parts, ["secrets", "store", "validators", "listing"]);
  return fanoutWorkerHandler(lazyRealtime(app, { assumeValidSchema: parts.assumeValidSchema ?? false, fanoutOptions: fanoutOptions() }));
}
