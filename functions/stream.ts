import { buildApp, identifyingServiceTypes } from "../app/definition.ts";
import { streamHandler } from "../lib/realtime/handler.ts";
import { streamRealtime } from "../lib/realtime/fanout-env.ts";
import { installValidators } from "../lib/core/validation.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// This function's secrets, read from SSM once per cold start before anything is built (a
// deployed stage; `npm start` passes them in the environment).
await loadSecrets();

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle. It runs no login flow
// and issues no credential: the providers are built as their descriptions and the authentication
// service as AccessAuthentication (app/definition.ts).
const app = buildApp(identifyingServiceTypes());

// The models' DynamoDB streams: every write, by whichever process, becomes a lifecycle event
// delivered to WebSocket subscribers.
// Input validators were compiled by `npm run build`: no schema is compiled at run time.
installValidators(validators);
app.useStore(storeFromEnv());

// The schema was validated when `serverless package` checked schema-cache/ (as functions/graphql.ts).
// With a fan-out queue (deployed: FANOUT_QUEUE_URL; npm start: in-process) it plans, workers deliver.
export const handler = streamHandler(app, streamRealtime(app, { assumeValidSchema: true }), () => process.env.TABLE_PREFIX ?? "blog-local-");
