// `npm run seed:v3`: a realistic v3 data set in the database of `npm start`, to try the migration
// locally (README, "Migrating from v3"). Start `npm start` first, in another terminal.
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { parseArgs } from "node:util";
import { app } from "../app/index.ts";
import { migrationTables } from "../lib/auth/v3/setup.ts";
import { BULK_PASSWORD, DEMO_ACCOUNTS, MALFORMED_KEY, v3Dataset, writeRows } from "../lib/auth/v3/seed-data.ts";
import { localDynamoDbClient } from "../lib/local/local-aws.ts";

const USAGE = `usage: npm run seed:v3 -- [--idents N] [--no-malformed] [--endpoint URL] [--prefix PREFIX]

Writes a realistic v3 data set (users, email and Idp idents, one malformed key) into the database
of a running \`npm start\`, to try \`webda auth migrate\` on (docs/migrating-from-v3.md).

  --idents N      ident rows to write (default 1000, from 10 to 1000000)
  --no-malformed  leave out the malformed key that stops a migration's scan
  --endpoint URL  DynamoDB (default: DYNAMODB_ENDPOINT, else http://127.0.0.1:8000)
  --prefix P      table prefix (default: TABLE_PREFIX, else <project>-local-)`;

function parse(): { idents: string; endpoint: string; prefix: string; "no-malformed": boolean } {
  try {
    const { values } = parseArgs({
      options: {
        idents: { type: "string", default: "1000" },
        endpoint: { type: "string", default: process.env.DYNAMODB_ENDPOINT || "http://127.0.0.1:8000" },
        prefix: { type: "string", default: process.env.TABLE_PREFIX || `${app.name}-local-` },
        "no-malformed": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    return values;
  } catch (error) {
    process.stderr.write(`seed:v3: ${error instanceof Error ? error.message : String(error)} (npm run seed:v3 -- --help)\n`);
    process.exit(2);
  }
}

const values = parse();
const count = Number(values.idents);
if (!Number.isInteger(count) || count < 10 || count > 1_000_000) {
  process.stderr.write("seed:v3: --idents takes a whole number from 10 to 1000000\n");
  process.exit(2);
}

const raw = localDynamoDbClient(values.endpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tables = migrationTables(app, values.prefix);
try {
  const data = v3Dataset({ idents: count, malformed: !values["no-malformed"] });
  await writeRows(client, tables.users, data.users);
  await writeRows(client, tables.idents, data.idents);
  const e = data.expected;
  process.stdout.write(
    [
      `seed:v3: wrote ${data.users.length} v3 users to ${tables.users} and ${data.idents.length} v3 idents to ${tables.idents} (${values.endpoint})`,
      `  a full migration should report: idents migrated ${e.identsMigrated}, failed ${e.identConflicts} (IDENT_CONFLICT), skipped ${e.identsUnsupported} (github: no v4 provider); users migrated ${e.usersMigrated}`,
      values["no-malformed"] ? "" : `  the malformed key '${MALFORMED_KEY}' stops the scan first: the walk-through in the README removes it`,
      `  v3 logins: ${DEMO_ACCOUNTS.map((a) => `${a.email} / ${a.password}`).join(", ")}; generated users user${DEMO_ACCOUNTS.length}@example.com to user${data.users.length - 1}@example.com / ${BULK_PASSWORD}` +
        " (N a multiple of 3: never verified; N ending in 3: once migrated)",
    ]
      .filter(Boolean)
      .join("\n") + "\n",
  );
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`seed:v3: ${message}\n  start \`npm start\` first, in another terminal (its DynamoDB Local should be on ${values.endpoint})\n`);
  process.exitCode = 1;
} finally {
  raw.destroy();
}
