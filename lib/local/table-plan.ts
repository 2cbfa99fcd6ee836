import { DescribeTableCommand, ListTablesCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { blocking, planTables, type Plan } from "../cli/plan/diff.mjs";
import { renderPlan } from "../cli/plan/render.mjs";
import { specOf, type TableSpec } from "../cli/plan/tables.mjs";
import { tableLogicalId } from "../store/cloudformation.ts";

/** The environment variable that accepts a table's removal locally, as `--param acceptTableChanges` does for a deploy. */
export const LOCAL_ACCEPT_ENV = "WEBDA_ACCEPT_TABLE_CHANGES";

async function tableNames(client: DynamoDBClient, prefix: string): Promise<string[]> {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    names.push(...(page.TableNames ?? []).filter((n) => n.startsWith(prefix)));
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

const isEmpty = async (client: DynamoDBClient, name: string): Promise<boolean> =>
  ((await client.send(new ScanCommand({ TableName: name, Limit: 1 }))).Items ?? []).length === 0;

/**
 * The plan a deploy makes (lib/cli/plan), for a database an earlier `npm start -- --persist` (or
 * DYNAMODB_ENDPOINT) holds: its tables under the prefix as DescribeTable says, against those the
 * application declares. Logical ids are the deploy's (PostTable), so a refusal reads alike. A
 * table no model declares any more counts only when it holds records: an empty one loses nothing.
 */
export async function localTablePlan(
  client: DynamoDBClient,
  prefix: string,
  definitions: readonly CreateTableCommandInput[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Plan> {
  const idOf = (name: string) => tableLogicalId(name.slice(prefix.length));
  const declared = new Set(definitions.map((d) => d.TableName));
  const before = new Map<string, TableSpec>();
  for (const name of await tableNames(client, prefix)) {
    if (!declared.has(name) && (await isEmpty(client, name))) continue;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    if (Table) before.set(idOf(name), specOf(idOf(name), { ...Table }, { retained: true }));
  }
  const after = new Map(
    definitions.flatMap((d) => (d.TableName ? [[idOf(d.TableName), specOf(idOf(d.TableName), { ...d }, { retained: true })] as const] : [])),
  );
  // A new table of the running application is created as ever; the plan concerns what exists.
  const accept = (env[LOCAL_ACCEPT_ENV] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return planTables(before, after, {
    accept,
    deploy: "npm start -- --persist",
    copy: "npx webda db copy --local",
    acceptCommand: (id) => `${LOCAL_ACCEPT_ENV}=${id} npm start -- --persist`,
  });
}

/** Refuses (throws, with the plan) a database that holds a change no deploy would carry out. */
export function assertLocalPlan(plan: Plan): void {
  if (blocking(plan).length === 0) return;
  const lines = renderPlan(plan, { deploy: "npm start -- --persist" });
  throw new Error(`the database holds tables this version cannot use as they are (docs/changing-a-deployed-application.md):\n${lines.join("\n")}`);
}
