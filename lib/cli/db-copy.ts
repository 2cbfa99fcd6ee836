import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, ScanCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { commandDynamoDBClient } from "./dynamodb-client.ts";
import { usageError } from "./commands.ts";

export const DB_COPY_USAGE = `usage: webda db copy --from TABLE --to TABLE [--batch N] [--state FILE] [--drop-source] [--local | --endpoint URL]

Copies every record of a table into another (a renamed model's new table, a model's table with a
new key), page by page, printing progress. A record already in the target (written by the
application since the deploy, or by an earlier run) is never overwritten: a rerun is harmless, and
an interrupted run resumes from where its state file says. At the end both tables are counted: the
copy succeeds when every source record is in the target. The source is kept unless --drop-source
is given, and even then only after a successful, counted copy.

  --from TABLE     the old table's full name (e.g. shop-prod-Order)
  --to TABLE       the new table's full name; it must exist (the deploy creates it)
  --batch N        records read per page (default 100, at most 1000)
  --state FILE     where progress is kept (default .webda/copy-FROM-TO.json)
  --drop-source    delete the source table once the copy is complete and counted
  --local          the database of \`npm start\` (http://127.0.0.1:8000)
  --endpoint URL   a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else AWS's, with your credentials)

Exit codes: 0 copied and counted; 1 database error or counts that do not match; 2 bad arguments.`;

const CONCURRENCY = 10;

interface Arguments {
  from: string;
  to: string;
  batch: number;
  state: string;
  dropSource: boolean;
  local: boolean;
  endpoint: string | undefined;
}

interface CopyState {
  from: string;
  to: string;
  /** Where the next page starts; null once the scan is done. */
  next: Record<string, AttributeValue> | null | undefined;
  read: number;
  copied: number;
  present: number;
}

function parse(argv: string[], env: NodeJS.ProcessEnv): Arguments {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      batch: { type: "string", default: "100" },
      state: { type: "string" },
      "drop-source": { type: "boolean", default: false },
      local: { type: "boolean", default: false },
      endpoint: { type: "string" },
    },
  });
  if (!values.from) throw new Error("--from: which table? (its full name)");
  if (!values.to) throw new Error("--to: which table? (its full name)");
  if (values.from === values.to) throw new Error("--from and --to name the same table");
  const batch = Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000) throw new Error(`--batch must be a whole number from 1 to 1000, not '${values.batch}'`);
  const endpoint = values.endpoint ?? (env.DYNAMODB_ENDPOINT || (values.local ? "http://127.0.0.1:8000" : undefined));
  const state = values.state ?? join(".webda", `copy-${values.from}-${values.to}.json`);
  return { from: values.from, to: values.to, batch, state, dropSource: values["drop-source"], local: values.local, endpoint };
}

async function keyNames(client: DynamoDBClient, table: string): Promise<string[]> {
  const schema = (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.KeySchema ?? [];
  return schema.flatMap((k) => (k.AttributeName ? [k.AttributeName] : []));
}

async function count(client: DynamoDBClient, table: string): Promise<number> {
  let total = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, Select: "COUNT", ConsistentRead: true, ExclusiveStartKey: start }));
    total += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return total;
}

/** Is every source key in the target? Reads the source's keys and the target's, both whole. */
async function missingKeys(client: DynamoDBClient, from: string, to: string, targetKey: string[]): Promise<number> {
  const keyOf = (item: Record<string, AttributeValue>) => JSON.stringify(targetKey.map((k) => item[k] ?? null));
  const keys = async (table: string) => {
    const seen = new Set<string>();
    let start: Record<string, AttributeValue> | undefined;
    do {
      const names = Object.fromEntries(targetKey.map((k, i) => [`#k${i}`, k]));
      const page = await client.send(
        new ScanCommand({
          TableName: table,
          ProjectionExpression: Object.keys(names).join(", "),
          ExpressionAttributeNames: names,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) seen.add(keyOf(item));
      start = page.LastEvaluatedKey;
    } while (start);
    return seen;
  };
  const [source, target] = [await keys(from), await keys(to)];
  return [...source].filter((k) => !target.has(k)).length;
}

async function readState(file: string, from: string, to: string): Promise<CopyState> {
  const fresh: CopyState = { from, to, next: undefined, read: 0, copied: 0, present: 0 };
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return fresh;
  const state = JSON.parse(text) as CopyState;
  if (state.from !== from || state.to !== to) throw new Error(`${file} is the state of a copy from ${state.from} to ${state.to}: give another --state`);
  return state;
}

/** Puts one record unless the target holds one of its key; "present" when it does. */
async function put(client: DynamoDBClient, table: string, hash: string, item: Record<string, AttributeValue>): Promise<"copied" | "present"> {
  try {
    await client.send(
      new PutItemCommand({ TableName: table, Item: item, ConditionExpression: "attribute_not_exists(#k)", ExpressionAttributeNames: { "#k": hash } }),
    );
    return "copied";
  } catch (error) {
    if (error instanceof Error && error.name === "ConditionalCheckFailedException") return "present";
    throw error;
  }
}

/** `webda db copy`: returns the process exit code. */
export async function dbCopy(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  let args: Arguments;
  try {
    args = parse(argv, env);
  } catch (error) {
    process.stderr.write(`${usageError("db copy", error)}\n`);
    return 2;
  }
  const client = commandDynamoDBClient(args, env, 5);
  try {
    await keyNames(client, args.from);
    const targetKey = await keyNames(client, args.to);
    const hash = targetKey[0];
    if (!hash) throw new Error(`${args.to} has no key schema`);
    const state = await readState(args.state, args.from, args.to);
    if (state.next !== undefined) out(`webda db copy: resuming ${args.from} -> ${args.to} after ${state.read} records (${args.state})`);
    const save = async () => {
      await mkdir(dirname(args.state), { recursive: true });
      await writeFile(args.state, `${JSON.stringify(state)}\n`);
    };
    let unkeyed = 0;
    while (state.next !== null) {
      const page = await client.send(
        new ScanCommand({ TableName: args.from, Limit: args.batch, ConsistentRead: true, ExclusiveStartKey: state.next ?? undefined }),
      );
      const items = page.Items ?? [];
      // A record without the new key's fields cannot be put: counted, reported, never skipped silently.
      const keyed = items.filter((item) => targetKey.every((k) => item[k] !== undefined));
      unkeyed += items.length - keyed.length;
      for (let i = 0; i < keyed.length; i += CONCURRENCY) {
        const outcomes = await Promise.all(keyed.slice(i, i + CONCURRENCY).map((item) => put(client, args.to, hash, item)));
        state.copied += outcomes.filter((o) => o === "copied").length;
        state.present += outcomes.filter((o) => o === "present").length;
      }
      state.read += items.length;
      // The page is done before its end is saved: a kill re-puts at most one page, which the condition makes harmless.
      state.next = page.LastEvaluatedKey ?? null;
      await save();
      out(`webda db copy: ${state.read} read, ${state.copied} copied, ${state.present} already there`);
    }
    if (unkeyed > 0) {
      out(`webda db copy: ${unkeyed} records of ${args.from} lack a field of ${args.to}'s key (${targetKey.join(", ")}): not copied`);
    }
    const [source, target] = [await count(client, args.from), await count(client, args.to)];
    const missing = await missingKeys(client, args.from, args.to, targetKey);
    out(`webda db copy: counted ${source} records in ${args.from}, ${target} in ${args.to}; ${missing} of the source's missing from the target`);
    if (missing > 0 || target < source) {
      // The next run reads the source again from its start (harmless: nothing is overwritten), so records fixed meanwhile are copied.
      await rm(args.state, { force: true });
      out(`webda db copy: incomplete: ${args.from} is kept; fix the records named above and run again`);
      return 1;
    }
    await rm(args.state, { force: true });
    if (args.dropSource) {
      await client.send(new DeleteTableCommand({ TableName: args.from }));
      out(`webda db copy: dropped ${args.from}`);
    } else out(`webda db copy: complete; ${args.from} is kept (run again with --drop-source to delete it)`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`webda db copy: ${message}${args.local ? "\n  is `npm start` running?" : ""}\n`);
    return 1;
  } finally {
    client.destroy();
  }
}
