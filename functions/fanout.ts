import { buildApp, identifyingServiceTypes } from "../app/definition.ts";
import { fanoutWorkerHandler } from "../lib/realtime/fanout-handler.ts";
import { fanoutOptions } from "../lib/realtime/fanout-options.ts";
import { lazyRealtime } from "../lib/realtime/local.ts";
import { installValidators } from "../lib/core/validation.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// As functions/stream.ts: secrets once per cold start, the application from its definition only.
await loadSecrets();
const app = buildApp(identifyingServiceTypes());
installValidators(validators);
app.useStore(storeFromEnv());

// The fan-out queue's shares: each message is one topic share of one event, delivered with the
// subscriber's permission and filter checked as the stream function did before the queue.
export const handler = fanoutWorkerHandler(lazyRealtime(app, { assumeValidSchema: true, fanoutOptions: fanoutOptions() }));
