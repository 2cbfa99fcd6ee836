import { identifyingApp } from "../app/definition.ts";
import { domainListing } from "../lib/core/list.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { graphqlFunction } from "../lib/graphql/function.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// It runs no login flow and issues no credential: the providers are built as their descriptions
// and the authentication service as AccessAuthentication (app/definition.ts). Its configuration and
// schema were checked when `serverless package` ran the CLI, which refuses a stale schema-cache/.
export const handler = await graphqlFunction({
  app: identifyingApp,
  secrets: loadSecrets,
  store: storeFromEnv,
  validators,
  listing: domainListing,
  assumeValidSchema: true,
});
