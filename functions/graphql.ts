import { buildApp, identifyingServiceTypes } from "../app/definition.ts";
import { graphqlHandler } from "../lib/graphql/handler.ts";
import { graphqlOptions } from "../lib/graphql/service.ts";
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

// Module scope runs once per cold start: the executable schema and the document cache are built
// here and shared by every request this instance serves.
// Input validators were compiled by `npm run build`: no schema is compiled at run time.
installValidators(validators);
app.useStore(storeFromEnv());

// The same check validated this definition's schema (schema-cache/schema.graphql is rendered
// through graphql-js's type-system validation, and packaging refuses a stale cache), so the first
// request does not validate it again.
export const handler = graphqlHandler(app, graphqlOptions(app), { assumeValid: true });
