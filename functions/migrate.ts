import type { Context } from "aws-lambda";
import { app } from "../app/index.ts";
import { runMigrationInvocation } from "../lib/auth/v3/lambda.ts";
import { applicationSecretForTools } from "../lib/auth/v3/secret.ts";
import { documentClient } from "../lib/store/dynamodb-client.ts";

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
