import { identifyingApp } from "../app/definition.ts";
import { domainListing } from "../lib/core/list.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { streamFunction } from "../lib/realtime/stream-function.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { tablePrefix } from "../lib/store/table-prefix.ts";
import { validators } from "../schema-cache/validators.mjs";

// The models' DynamoDB streams: every write, by whichever process, reaches WebSocket subscribers.
export const handler = await streamFunction({
  app: identifyingApp,
  secrets: loadSecrets,
  store: storeFromEnv,
  validators,
  listing: domainListing,
  assumeValidSchema: true,
  tablePrefix: () => tablePrefix("the stream function"),
});
