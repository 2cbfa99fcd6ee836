import { buildApp, identifyingServiceTypes } from "../app/definition.ts";
import { readHandler } from "../lib/rest/read-handler.ts";
import { recordStoreFromEnv } from "../lib/store/select-records.ts";

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle. A record read runs
// none of the login providers' flows and issues no credentials: the providers are built as their
// descriptions and the authentication service as AccessAuthentication (app/definition.ts). It
// reads no secret (serverless.yml custom.secrets.readers): it verifies access tokens with the
// public key set, so the secret store's loader is not bundled here.
const app = buildApp(identifyingServiceTypes());

// The function of one record read (`GET /posts/{slug}`, per-route packaging): it validates no
// input, so the validators `npm run build` compiled are not installed, nor bundled; it lists
// nothing, so its store reads by key without the query language and its planner.
app.useStore(recordStoreFromEnv());

export const handler = readHandler(app);
