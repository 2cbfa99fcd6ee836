import { app } from "../app/index.ts";
import { streamHandler } from "../lib/realtime/handler.ts";
import { lazyRealtime } from "../lib/realtime/local.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// The models' DynamoDB streams: every write, by whichever process, becomes a lifecycle event
// delivered to WebSocket subscribers.
app.useStore(storeFromEnv());

export const handler = streamHandler(app, lazyRealtime(app), () => process.env.TABLE_PREFIX ?? "blog-local-");
