import { identifyingApp } from "../app/definition.ts";
import { domainListing } from "../lib/core/list.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { fanoutFunction } from "../lib/realtime/fanout-function.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// The fan-out queue's shares: each message reaches one share of one event's subscribers, with
// each subscriber's permission and filter checked here, as the stream function would.
export const handler = await fanoutFunction({
  app: identifyingApp,
  secrets: loadSecrets,
  store: storeFromEnv,
  validators,
  listing: domainListing,
  assumeValidSchema: true,
});
