import { identifyingApp } from "../app/definition.ts";
import { domainListing } from "../lib/core/list.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { websocketFunction } from "../lib/realtime/websocket-function.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// The WebSocket API's three routes; connection state lives in DynamoDB, never in this process. Its
// schema was checked when `serverless package` ran the CLI (as functions/graphql.ts's).
export const handler = await websocketFunction({
  app: identifyingApp,
  secrets: loadSecrets,
  store: storeFromEnv,
  validators,
  listing: domainListing,
  assumeValidSchema: true,
});
