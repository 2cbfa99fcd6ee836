import { buildApp, sessionRoutesServiceTypes } from "../app/definition.ts";
import { authDispatcher } from "../lib/auth/routes/table.ts";
import { sessionRoutes } from "../lib/auth/routes/session-routes.ts";
import { httpHandler } from "../lib/http/handler.ts";
import { recordStoreFromEnv } from "../lib/store/select-records.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// This function's secrets, read from SSM once per cold start before anything is built (a
// deployed stage; `npm start` passes them in the environment).
await loadSecrets();

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle. The session routes
// run none of the login providers' flows (GET /auth/providers lists their descriptions): the
// providers are built as their descriptions, and their flows are not bundled.
const app = buildApp(sessionRoutesServiceTypes());

// The authentication service's own routes (keys, providers, me, refresh, logout, idents), each its
// own function with per-route packaging: none sends mail, checks a password, runs the Idp
// protocol or validates model input, so SES, bcrypt, openid-client and the validators are not
// installed here, nor bundled (functions/auth.ts serves the providers' routes). None lists records
// either (a user's sessions and idents are read by key), so the store comes without the planner.
app.useStore(recordStoreFromEnv());

export const handler = httpHandler("auth", authDispatcher(app, sessionRoutes()));
