import { createApp } from "../app/definition.ts";
import { graphqlHandler } from "../lib/graphql/handler.ts";
import { installValidators } from "../lib/core/validation.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle.
const app = createApp();

// Module scope runs once per cold start: the executable schema and the document cache are built
// here and shared by every request this instance serves.
// Input validators were compiled by `npm run build`: no schema is compiled at run time.
installValidators(validators);
app.useStore(storeFromEnv());

export const handler = graphqlHandler(app);
