import { parseArgs } from "node:util";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "./local-aws.ts";
import { OFFLINE_STAGE } from "./offline.ts";
import { DEFAULT_DB_PORT } from "./start-options.ts";

/** Where `npm run seed` writes: the local stage's DynamoDB, or (forced by name) a deployed stage's tables. */
export interface SeedTarget {
  stage: string;
  /** Undefined: the region's DynamoDB, with the caller's AWS identity. */
  endpoint: string | undefined;
  tablePrefix: string;
  local: boolean;
}

export const SEED_USAGE = `usage: npm run seed [-- [--stage <name> --force <name>]]

Creates the application's seed data (its \`seed\` export: demo users and their records) through
the domain layer. Idempotent: records a previous run created are left alone.

  (no option)        the local stage: the DynamoDB Local of a running \`npm start\`
                     (http://127.0.0.1:${DEFAULT_DB_PORT}, or DYNAMODB_ENDPOINT; tables TABLE_PREFIX or <app>-local-)
  --stage <name>     a deployed stage's tables (<app>-<name>-*), with your AWS credentials
  --force <name>     required with a deployed stage, naming it again: demo users have public passwords
  -h, --help         show this help`;

export class SeedRefused extends Error {
  override name = "SeedRefused";
}

/** Reads the command line; refuses a deployed stage unless `--force` names that same stage. */
export function seedTarget(argv: readonly string[], appName: string, env: NodeJS.ProcessEnv = process.env): SeedTarget | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: { stage: { type: "string" }, force: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) return "help";
  const stage = values.stage ?? OFFLINE_STAGE;
  if (!/^[a-zA-Z0-9-]+$/.test(stage)) throw new SeedRefused(`--stage: '${stage}' is not a stage name`);
  if (stage === OFFLINE_STAGE) {
    return {
      stage,
      endpoint: env.DYNAMODB_ENDPOINT || `http://127.0.0.1:${DEFAULT_DB_PORT}`,
      tablePrefix: env.TABLE_PREFIX || `${appName}-${OFFLINE_STAGE}-`,
      local: true,
    };
  }
  if (values.force !== stage) {
    throw new SeedRefused(
      `refusing to seed the deployed stage '${stage}': it would create demo users whose passwords are public. ` +
        `If that is really what you want, run again with --force ${stage}.`,
    );
  }
  return { stage, endpoint: env.DYNAMODB_ENDPOINT || undefined, tablePrefix: `${appName}-${stage}-`, local: false };
}

/** Client settings for a target: the dummy identity for DynamoDB Local, the caller's own otherwise. */
export function clientConfig(target: SeedTarget): { region?: string; credentials?: typeof LOCAL_CREDENTIALS } {
  return target.local ? { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS } : {};
}
