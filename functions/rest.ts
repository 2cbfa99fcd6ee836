import { app } from "../app/index.ts";
import { restHandler } from "../lib/rest/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// Module scope runs once per cold start: the registry, the route table and the store are shared
// by every request this instance serves.
app.useStore(storeFromEnv());

export const handler = restHandler(app);
