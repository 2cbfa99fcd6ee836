import { createApp } from "../app/definition.ts";
import { migrationFunction } from "../lib/auth/v3/migration-function.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { tablePrefix } from "../lib/store/table-prefix.ts";
import { validators } from "../schema-cache/validators.mjs";

// `authMigrate`: `webda auth migrate` as a function, invoked by hand
// (`serverless invoke -f authMigrate --data '{"dryRun": true}'`) or by its optional schedule.
export const handler = await migrationFunction({
  app: createApp,
  secrets: loadSecrets,
  validators,
  tablePrefix: () => tablePrefix("the migration function"),
  local: () => process.env.IS_LOCAL === "true",
});
