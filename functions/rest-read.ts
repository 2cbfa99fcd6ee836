import { buildApp, identifyingServiceTypes } from "../app/definition.ts";
import { readHandler } from "../lib/rest/read-handler.ts";
import { recordStoreFromEnv } from "../lib/store/select-records.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// This function's secrets, read from SSM once per cold start before anything is built (a
// deployed stage; `npm start` passes them in the environment).
await loadSecrets();

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle. A record read runs
// none of the login providers' flows and issues no credentials: the providers are built as their
// descriptions and the authentication service as AccessAuthentication (app/definition.ts).
const app = buildApp(identifyingServiceTypes());

// The function of one record read (`GET /posts/{slug}`, per-route packaging): it validates no
// input, so the validators `npm run build` compiled are not installed, nor bundled; it lists
// nothing, so its store reads by key without the query language and its planner.
app.useStore(recordStoreFromEnv());

export const handler = readHandler(app);
