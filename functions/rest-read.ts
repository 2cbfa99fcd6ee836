import { identifyingApp } from "../app/definition.ts";
import { recordReadFunction } from "../lib/rest/read-function.ts";
import { recordStoreFromEnv } from "../lib/store/select-records.ts";

// One record read (`GET /posts/{slug}`, per-route packaging). It runs no login flow and issues no
// credential (the providers as their descriptions, the authentication service as
// AccessAuthentication: app/definition.ts); it validates nothing, lists nothing (its store reads by
// key, without the query language) and reads no secret (it verifies access tokens with the public
// key set): none of those is bundled here.
export const handler = await recordReadFunction({
  app: identifyingApp,
  store: recordStoreFromEnv,
});
