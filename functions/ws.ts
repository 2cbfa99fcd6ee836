import { app } from "../app/index.ts";
import { websocketHandler } from "../lib/realtime/handler.ts";
import { lazyRealtime } from "../lib/realtime/local.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// The WebSocket API's three routes ($connect, $disconnect, $default). Module scope runs once per
// cold start; connection state lives in DynamoDB, never in this process.
app.useStore(storeFromEnv());

export const handler = websocketHandler(lazyRealtime(app));
