import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { commandDynamoDBClient } from "./dynamodb-client.ts";
import type { Application } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { pick } from "../core/sanitize.ts";
import { ValidationError } from "../core/errors.ts";
import { tableName } from "../store/dynamodb-tables.ts";
import { migrateRecords, type MigrationCheckpoint, type MigrationCounts, type ModelMigrationReport } from "../store/record-migration.ts";
import { usageError, type Output } from "./commands.ts";

export const DB_MIGRATE_USAGE = `usage: webda db migrate [--model NAME]... [--dryRun] [--batch N] [--json] [--state DIR] [--local | --stage NAME] [--endpoint URL]

Upgrades stored records in place to their model's current shape (version, upgrade steps, defaults:
docs/model-versions.md). Reads serve old records upgraded already;
this makes the table itself current. Each record is written by a put conditional on the __version
it was read at: a write that lands first wins, and the record is read and upgraded again.

  --model NAME    only this model (repeatable); default every model with defaults or a version past 1
  --dryRun        write nothing; count what would be upgraded, and the records invalid once upgraded
  --batch N       records evaluated per scan page (default 100, at most 1000)
  --json          print the report as JSON on stdout (progress stays on stderr)
  --state DIR     where the checkpoint of each table is kept (default .data/db-migrate): a run
                  stopped (Ctrl-C, a kill) resumes after its last settled page; removed when done
  --local         the database of \`npm start\` (http://127.0.0.1:8000, tables <app>-local-*)
  --stage NAME    the tables of a deployed stage (<app>-<stage>-*), with your AWS credentials
  --endpoint URL  a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else AWS's)
Tables: TABLE_PREFIX when set, else from --local/--stage.

Exit codes: 0 done; 3 done, with records invalid once upgraded (left as they are, listed);
4 stopped before the end, run again to resume; 2 bad arguments; 1 database error.`;

interface Arguments {
  models: ModelInfo[];
  dryRun: boolean;
  batch: number;
  json: boolean;
  state: string;
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
      model: { type: "string", multiple: true },
      dryRun: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      batch: { type: "string" },
      json: { type: "boolean", default: false },
      state: { type: "string" },
      local: { type: "boolean", default: false },
      stage: { type: "string" },
      endpoint: { type: "string" },
    },
  });
  const batch = values.batch === undefined ? 100 : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000) throw new Error(`--batch: expected a whole number from 1 to 1000, got "${values.batch}"`);
  if (values.local && values.stage !== undefined) throw new Error("--local and --stage name different databases: give one");
  const stage = values.local ? "local" : values.stage;
  const prefix = env.TABLE_PREFIX || (stage !== undefined ? `${app.name}-${stage}-` : undefined);
  if (prefix === undefined) throw new Error("which tables? give --local, --stage NAME or TABLE_PREFIX");
  const models = (values.model ?? []).map((name) => {
    const info = app.model(name);
    if (!info)
      throw new Error(
        `--model: no model '${name}' (models: ${app
          .models()
          .map((m) => m.name)
          .join(", ")})`,
      );
    return info;
  });
  const endpoint = values.endpoint ?? (env.DYNAMODB_ENDPOINT || (values.local ? "http://127.0.0.1:8000" : undefined));
  return {
    models: models.length > 0 ? models : app.models().filter((m) => m.upgrade.active),
    dryRun: values.dryRun || values["dry-run"],
    batch,
    json: values.json,
    state: values.state ?? join(".data", "db-migrate"),
    endpoint,
    prefix,
    local: values.local,
  };
}

/** Why a record, once upgraded, does not hold its model's current schema (undefined when it does). */
function invalidity(app: Application, info: ModelInfo): (record: Record<string, unknown>) => string | undefined {
  return (record) => {
    try {
      app.validation().assert(info.inputSchema, pick(record, Object.keys(info.inputSchema.properties)));
      return undefined;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return `invalid once upgraded: ${error.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`;
    }
  };
}

async function readCheckpoint(file: string, info: ModelInfo, table: string): Promise<MigrationCheckpoint | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const checkpoint = JSON.parse(text) as MigrationCheckpoint;
  // A checkpoint of another version's run says nothing of this one's: start over (idempotent anyway).
  return checkpoint.model === info.name && checkpoint.table === table && checkpoint.version === info.upgrade.version ? checkpoint : undefined;
}

function progressLine(io: Output, table: string, total: number): (counts: MigrationCounts) => void {
  let last = 0;
  return (c) => {
    if (Date.now() - last < 1000) return;
    last = Date.now();
    const percent = total > 0 ? ` (~${Math.min(100, Math.round((c.scanned / total) * 100))}%)` : "";
    io.err(`${table}: ${c.scanned} scanned${percent}, ${c.found} old, ${c.upgraded} upgraded, ${c.failed} failed`);
  };
}

function render(report: ModelMigrationReport): string[] {
  const c = report.counts;
  const status = report.incomplete ? "stopped, run again to resume" : report.dryRun ? "dry run, nothing written" : "complete";
  const lines = [
    `  ${report.model} (${report.table}, version ${report.version}): ${status}${report.resumedFrom ? ", resumed from its checkpoint" : ""}`,
    `    scanned ${c.scanned}, old ${c.found}, ${report.dryRun ? "would upgrade" : "upgraded"} ${c.upgraded}, settled by other writes ${c.settledByOthers}, retried ${c.retried}, failed ${c.failed}`,
  ];
  for (const failure of report.failures.slice(0, 10)) lines.push(`    ${JSON.stringify(failure.key)}: ${failure.message}`);
  if (report.failures.length > 10) lines.push(`    ... and ${report.failures.length - 10} more (--json lists them)`);
  return lines;
}

const stdio: Output = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };

/** `webda db migrate`: returns the process exit code. */
export async function dbMigrate(app: Application, argv: string[], env: NodeJS.ProcessEnv = process.env, io: Output = stdio): Promise<number> {
  let args: Arguments;
  try {
    args = parse(app, argv, env);
  } catch (error) {
    io.err(usageError("db migrate", error));
    return 2;
  }
  const raw = commandDynamoDBClient(args, env, 6);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const interrupted = { value: false };
  const stop = (): void => {
    // The page in flight is settled and checkpointed; the report says where to resume.
    interrupted.value = true;
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const reports: ModelMigrationReport[] = [];
  try {
    for (const info of args.models) {
      const table = tableName(args.prefix, info.name);
      const file = join(args.state, `${table}.json`);
      const resume = args.dryRun ? undefined : await readCheckpoint(file, info, table);
      const total = (await raw.send(new DescribeTableCommand({ TableName: table }))).Table?.ItemCount ?? 0;
      const report = await migrateRecords({
        client,
        table,
        info,
        batch: args.batch,
        dryRun: args.dryRun,
        ...(resume ? { resume } : {}),
        check: invalidity(app, info),
        shouldStop: () => interrupted.value,
        onProgress: progressLine(io, table, total),
        onCheckpoint: async (checkpoint) => {
          await mkdir(dirname(file), { recursive: true });
          // Written aside then renamed: a kill mid-write leaves the previous checkpoint whole.
          await writeFile(`${file}.tmp`, JSON.stringify(checkpoint));
          await rename(`${file}.tmp`, file);
        },
      });
      reports.push(report);
      if (!report.incomplete && !args.dryRun) await rm(file, { force: true });
      if (report.incomplete) break;
    }
  } catch (error) {
    io.err(`webda db migrate: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    raw.destroy();
  }
  if (args.json) io.out(JSON.stringify(reports, null, 2));
  else if (reports.length === 0) io.out("webda db migrate: nothing to do, no model declares a default or a version past 1");
  else io.out([`webda db migrate: ${reports.length} model${reports.length === 1 ? "" : "s"}`, ...reports.flatMap(render)].join("\n"));
  if (reports.some((r) => r.incomplete)) return 4;
  return reports.some((r) => r.counts.failed > 0) ? 3 : 0;
}
