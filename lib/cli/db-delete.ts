import { parseArgs } from "node:util";
import { DeleteItemCommand, DescribeTableCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { commandDynamoDBClient } from "./dynamodb-client.ts";
import { usageError } from "./commands.ts";

export const DB_DELETE_USAGE = `usage: webda db delete --table NAME --key VALUE [--sort VALUE] [--local | --endpoint URL]

Deletes one row by its key, e.g. the malformed ident a migration stopped at. Prints the row it
deleted (so it can be put back), or says there was none.

  --table NAME    the table's full name (<project>-local-auth-idents under npm start)
  --key VALUE     the row's partition key (a string; the table's key schema names the attribute)
  --sort VALUE    its sort key, for a table that has one
  --local         the database of \`npm start\` (http://127.0.0.1:8000)
  --endpoint URL  a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else AWS's, with your credentials)

Exit codes: 0 deleted; 3 no such row; 2 bad arguments; 1 database error.`;

interface Arguments {
  table: string;
  key: string;
  sort: string | undefined;
  local: boolean;
  endpoint: string | undefined;
}

function parse(argv: string[], env: NodeJS.ProcessEnv): Arguments {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      table: { type: "string" },
      key: { type: "string" },
      sort: { type: "string" },
      local: { type: "boolean", default: false },
      endpoint: { type: "string" },
    },
  });
  if (!values.table) throw new Error("--table: which table? (its full name)");
  if (values.key === undefined || values.key === "") throw new Error("--key: which row? (its partition key)");
  const endpoint = values.endpoint ?? (env.DYNAMODB_ENDPOINT || (values.local ? "http://127.0.0.1:8000" : undefined));
  return { table: values.table, key: values.key, sort: values.sort, local: values.local, endpoint };
}

/** `webda db delete`: returns the process exit code. */
export async function dbDelete(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: Arguments;
  try {
    args = parse(argv, env);
  } catch (error) {
    process.stderr.write(`${usageError("db delete", error)}\n`);
    return 2;
  }
  const client = commandDynamoDBClient(args, env, 3);
  try {
    const schema = (await client.send(new DescribeTableCommand({ TableName: args.table }))).Table?.KeySchema ?? [];
    const hash = schema.find((k) => k.KeyType === "HASH")?.AttributeName;
    const range = schema.find((k) => k.KeyType === "RANGE")?.AttributeName;
    if (!hash) throw new Error(`${args.table} has no key schema`);
    if (range && args.sort === undefined) {
      process.stderr.write(`webda db delete: ${args.table} is keyed by ${hash} and ${range}: give --sort too\n`);
      return 2;
    }
    const Key: Record<string, AttributeValue> = { [hash]: { S: args.key }, ...(range && args.sort !== undefined ? { [range]: { S: args.sort } } : {}) };
    const { Attributes } = await client.send(new DeleteItemCommand({ TableName: args.table, Key, ReturnValues: "ALL_OLD" }));
    if (!Attributes) {
      process.stdout.write(`webda db delete: no row ${JSON.stringify(args.key)} in ${args.table}; nothing deleted\n`);
      return 3;
    }
    process.stdout.write(`webda db delete: deleted ${JSON.stringify(args.key)} from ${args.table}; it held:\n${JSON.stringify(Attributes)}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`webda db delete: ${message}${args.local ? "\n  is `npm start` running?" : ""}\n`);
    return 1;
  } finally {
    client.destroy();
  }
}
