import { parseArgs } from "node:util";
import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { commandDynamoDBClient } from "./dynamodb-client.ts";
import type { Application } from "../core/application.ts";
import { applicationSecretForTools } from "../auth/v3/secret.ts";
import { CONFIRMING_SCAN_LIMIT, DEFAULT_BATCH, migrate, type Progress } from "../auth/v3/migrate.ts";
import { EXIT, exitCode, type MigrationReport } from "../auth/v3/report.ts";
import { migrationTables } from "../auth/v3/setup.ts";
import { TokenSealer } from "../auth/v3/tokens.ts";
import { configuredIssuers } from "../auth/idp-keys.ts";
import { renderReport } from "./migrate-report.ts";
import { usageError } from "./commands.ts";

export const MIGRATE_USAGE = `usage: webda auth migrate [--dryRun] [--batch N] [--json] [--local | --stage NAME] [--endpoint URL]

Upgrades v3 authentication data (idents under <uid>_<provider>, users' __password) to v4.

  --dryRun        write nothing; count what would migrate (and what would conflict)
  --batch N       rows per page (default ${DEFAULT_BATCH}): the first pass's scan page; confirming
                  passes evaluate up to ${CONFIRMING_SCAN_LIMIT} items a scan call, still N rows a page
  --json          print the report as JSON on stdout (progress stays on stderr)
  --local         the database of \`npm start\` (http://127.0.0.1:8000, tables <project>-local-*)
  --stage NAME    the tables of a deployed stage (<service>-<stage>-*), with your AWS credentials
  --endpoint URL  a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else AWS's)
Tables: TABLE_PREFIX when set, else from --local/--stage. Tokens are sealed with APP_SECRET.
Idp idents stored without their issuer (<sub>_idp, <sub>:idp) are given the issuer of the one
Idp service configured; with several configured they fail with IDP_ISSUER_UNKNOWN.

Exit codes: 0 clean; 3 done with failures (IDENT_CONFLICT, IDP_ISSUER_UNKNOWN); 4 incomplete, run again;
5 a malformed ident key stopped the scan (--dryRun too); 2 bad arguments or configuration
(APP_SECRET missing); 1 database error.`;

interface Arguments {
  dryRun: boolean;
  batch: number;
  json: boolean;
  endpoint: string | undefined;
  prefix: string;
  local: boolean;
}

function parse(app: Application, argv: string[], env: NodeJS.ProcessEnv): Arguments {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      dryRun: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      batch: { type: "string" },
      json: { type: "boolean", default: false },
      local: { type: "boolean", default: false },
      stage: { type: "string" },
      endpoint: { type: "string" },
    },
  });
  const batch = values.batch === undefined ? DEFAULT_BATCH : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000) throw new Error(`--batch: expected a whole number from 1 to 1000, got "${values.batch}"`);
  if (values.local && values.stage !== undefined) throw new Error("--local and --stage name different databases: give one");
  const stage = values.local ? "local" : values.stage;
  const prefix = env.TABLE_PREFIX || (stage !== undefined ? `${app.name}-${stage}-` : undefined);
  if (prefix === undefined) throw new Error("which tables? give --local, --stage NAME or TABLE_PREFIX");
  const endpoint = values.endpoint ?? (env.DYNAMODB_ENDPOINT || (values.local ? "http://127.0.0.1:8000" : undefined));
  return { dryRun: values.dryRun || values["dry-run"], batch, json: values.json, endpoint, prefix, local: values.local };
}

/** A progress bar on a terminal, a plain line every few seconds otherwise; both on stderr. */
function progressWriter(stream: NodeJS.WriteStream, totals: { idents: number; users: number }): { update: (p: Progress) => void; done: () => void } {
  let lastLine = 0;
  let drawn = false;
  return {
    update(p) {
      const total = Math.max(totals[p.kind], p.scanned);
      const text = `pass ${p.pass} ${p.kind}: ${p.scanned}/${total} scanned, ${p.migrated} migrated, ${p.failed} failed`;
      if (stream.isTTY) {
        const width = 24;
        const filled = total === 0 ? width : Math.round((p.scanned / total) * width);
        stream.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${text}\x1b[K`);
        drawn = true;
      } else if (Date.now() - lastLine >= 2000) {
        lastLine = Date.now();
        stream.write(`${text}\n`);
      }
    },
    done() {
      if (drawn) stream.write("\n");
    },
  };
}

async function estimate(client: DynamoDBClient, table: string): Promise<number> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.ItemCount ?? 0;
  } catch {
    return 0;
  }
}

/** `webda auth migrate`: returns the process exit code. */
export async function authMigrate(app: Application, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: Arguments;
  let sealer: TokenSealer;
  try {
    args = parse(app, argv, env);
    // A missing secret is a configuration error (exit 2), not a database one (exit 1).
    sealer = new TokenSealer(applicationSecretForTools(env, args.local));
  } catch (error) {
    process.stderr.write(`${usageError("auth migrate", error)}\n`);
    return EXIT.usage;
  }
  const raw = commandDynamoDBClient(args, env, 6);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const interrupted = { value: false };
  const stop = (): void => {
    // The page in flight finishes, so every key move is whole; the report says incomplete.
    interrupted.value = true;
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const tables = migrationTables(app, args.prefix);
    const totals = { idents: await estimate(raw, tables.idents), users: await estimate(raw, tables.users) };
    const progress = progressWriter(process.stderr, totals);
    let report: MigrationReport;
    try {
      report = await migrate({
        client,
        tables,
        batch: args.batch,
        dryRun: args.dryRun,
        seal: (tokens) => sealer.seal(tokens),
        idpIssuers: configuredIssuers(app.services()),
        shouldStop: () => interrupted.value,
        onProgress: progress.update,
      });
    } finally {
      progress.done();
    }
    process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, tables));
    return exitCode(report);
  } catch (error) {
    process.stderr.write(`webda auth migrate: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.error;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    raw.destroy();
  }
}
