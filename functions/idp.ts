import { app } from "../app/index.ts";
import { idpHandler } from "../lib/auth/idp/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// Once per cold start: the registry, the store, and (lazily, at the first request) the
// provider's discovery document and keys.
app.useStore(storeFromEnv());

export const handler = idpHandler(app);
