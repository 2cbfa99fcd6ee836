// `npm run seed:v3`: a realistic v3 data set in the database of `npm start`, to try the migration
// locally (README, "Migrating from v3"). Start `npm start` first, in another terminal.
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { parseArgs } from "node:util";
import { app } from "../app/index.ts";
import { migrationTables } from "../lib/auth/v3/setup.ts";
import { BULK_PASSWORD, DEMO_ACCOUNTS, MALFORMED_KEY, v3Dataset, writeRows } from "../lib/auth/v3/seed-data.ts";
import { localDynamoDbClient } from "../lib/local/local-aws.ts";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const { values } = parseArgs({
  options: {
    idents: { type: "string", default: "1000" },
    endpoint: { type: "string", default: process.env.DYNAMODB_ENDPOINT || "http://127.0.0.1:8000" },
    prefix: { type: "string", default: process.env.TABLE_PREFIX || "blog-local-" },
    "no-malformed": { type: "boolean", default: false },
  },
});
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
      `  v3 logins: ${DEMO_ACCOUNTS.map((a) => `${a.email} / ${a.password}`).join(", ")}; every other user: userN@example.com / ${BULK_PASSWORD}`,
    ]
      .filter(Boolean)
      .join("\n") + "\n",
  );
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`seed:v3: ${message}\n  is \`npm start\` running (DynamoDB Local on ${values.endpoint})?\n`);
  process.exitCode = 1;
} finally {
  raw.destroy();
}
