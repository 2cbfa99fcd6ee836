import { composeApplication, type Composed } from "../../core/compose.ts";
import { documentClient } from "../../store/dynamodb-client.ts";
import { migrationHandler } from "./lambda.ts";
import { applicationSecretForTools } from "./secret.ts";

export type MigrationFunctionParts = Composed<"secrets" | "validators"> & {
  /** The tables' name prefix (the deployed stage's `TABLE_PREFIX`). */
  tablePrefix: () => string;
  /** The tables are `npm start`'s (`serverless invoke local`): the secret is the one offline generated. */
  local: () => boolean;
};

/**
 * `authMigrate`: `webda auth migrate` as a function, invoked by hand or by its optional schedule.
 * It moves rows with its own DynamoDB client, so it is composed without a store.
 */
export async function migrationFunction(parts: MigrationFunctionParts) {
  const app = await composeApplication("auth migration", parts, ["secrets", "validators"]);
  // One handler built at cold start; Lambda's context gives each invocation its request id and deadline.
  return migrationHandler({
    app,
    client: documentClient(),
    prefix: parts.tablePrefix(),
    secret: () => applicationSecretForTools(process.env, parts.local(), app.secrets),
  });
}
