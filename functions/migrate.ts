import type { Context } from "aws-lambda";
import { createApp } from "../app/definition.ts";
import { runMigrationInvocation } from "../lib/auth/v3/lambda.ts";
import { applicationSecretForTools } from "../lib/auth/v3/secret.ts";
import { installValidators } from "../lib/core/validation.ts";
import { documentClient } from "../lib/store/dynamodb-client.ts";
import { validators } from "../schema-cache/validators.mjs";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// This function's secrets, read from SSM once per cold start before anything is built (a
// deployed stage; `npm start` passes them in the environment).
await loadSecrets();

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle.
const app = createApp();

// The same precompiled validators as every function: none is compiled at run time.
installValidators(validators);

// `authMigrate`: `webda auth migrate` as a function, invoked by hand
// (`serverless invoke -f authMigrate --data '{"dryRun": true}'`) or by its optional schedule.
export const handler = (event: unknown, context: Context) =>
  runMigrationInvocation(event, {
    app,
    client: documentClient(),
    prefix: process.env.TABLE_PREFIX ?? "blog-local-",
    secret: () => applicationSecretForTools(process.env, process.env.IS_LOCAL === "true"),
    remainingMs: () => context.getRemainingTimeInMillis(),
  });
