import { sessionRoutesApp } from "../app/definition.ts";
import { sessionRoutesFunction } from "../lib/auth/session-function.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { recordStoreFromEnv } from "../lib/store/select-records.ts";

// The authentication service's own routes (keys, providers, me, refresh, logout, idents). None
// sends mail, checks a password, runs the Idp protocol, validates model input or lists (sessions
// and idents are read by key): the providers are built as their descriptions, the store reads by
// key, and SES, bcrypt, openid-client, the validators and the query planner are not bundled here.
export const handler = await sessionRoutesFunction({
  app: sessionRoutesApp,
  secrets: loadSecrets,
  store: recordStoreFromEnv,
});
