import { app } from "../app/index.ts";
import { authDispatcher } from "../lib/auth/routes/table.ts";
import { httpHandler } from "../lib/http/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// The authentication routes (lib/auth/routes): module scope runs once per cold start.
app.useStore(storeFromEnv());

export const handler = httpHandler("auth", authDispatcher(app));
