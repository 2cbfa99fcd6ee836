import { createApp } from "../app/definition.ts";
import { domainListing } from "../lib/core/list.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { restFunction } from "../lib/rest/function.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// Every derived route but the record read. Built from the definition only: its configuration was
// checked when `serverless package` ran the CLI (app/index.ts), so TypeBox's interpreter stays out
// of this bundle; input validates with the validators `npm run build` compiled.
export const handler = await restFunction({
  app: createApp,
  secrets: loadSecrets,
  store: storeFromEnv,
  validators,
  listing: domainListing,
});
