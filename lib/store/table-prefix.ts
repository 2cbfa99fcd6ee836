import { ConfigurationError } from "../core/config.ts";

/**
 * No table prefix set: a deployed stage's functions get TABLE_PREFIX from serverless.yml, `npm
 * start` and the test setup set it too. Anything else reaching DynamoDB without one would otherwise
 * guess a project's tables, and read or write another project's data on a shared endpoint.
 */
export class TablePrefixMissing extends ConfigurationError {
  override name = "TablePrefixMissing";
  constructor(what: string) {
    super(`${what}: no table prefix (set TABLE_PREFIX, as serverless.yml and \`npm start\` do, or pass one)`);
  }
}

/** The given prefix, else TABLE_PREFIX; refused when neither is set (an empty value counts as unset). */
export function tablePrefix(what: string, prefix?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = prefix ?? env.TABLE_PREFIX;
  if (chosen === undefined || chosen === "") throw new TablePrefixMissing(what);
  return chosen;
}
