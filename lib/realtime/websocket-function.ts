import { composeApplication, type Composed } from "../core/compose.ts";
import { websocketHandler } from "./handler.ts";
import { lazyRealtime } from "./local.ts";

export type RealtimeFunctionParts = Composed<"secrets" | "store" | "validators" | "listing"> & {
  /** The schema was checked when the function was packaged (as the GraphQL function's). */
  assumeValidSchema?: boolean;
};

/** The WebSocket API's function ($connect, $disconnect, $default): connection state lives in DynamoDB. */
export async function websocketFunction(parts: RealtimeFunctionParts) {
  const app = await composeApplication("WebSocket", parts, ["secrets", "store", "validators", "listing"]);
  return websocketHandler(lazyRealtime(app, { assumeValidSchema: parts.assumeValidSchema ?? false }));
}
