import { createApp } from "../app/definition.ts";
import { restHandler } from "../lib/rest/handler.ts";
import { installValidators } from "../lib/core/validation.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// This function's secrets, read from SSM once per cold start before anything is built (a
// deployed stage; `npm start` passes them in the environment).
await loadSecrets();

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle.
const app = createApp();

// Module scope runs once per cold start: the registry, the route table and the store are shared
// by every request this instance serves.
// Input validators were compiled by `npm run build`: no schema is compiled at run time.
installValidators(validators);
app.useStore(storeFromEnv());

export const handler = restHandler(app);
