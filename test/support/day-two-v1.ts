// Day two's v1 (test/e2e/day-two.test.ts), run with tsx in the project copy, whose application it
// loads (v1's edits included): what v1's `npm start -- --data-dir <dir> --empty` leaves in the data
// directory, without serverless offline and its bundles, which v1's records do not need. DynamoDB
// Local over the directory, the tables npm start creates (the same definitions, the same identity),
// then the records, each through the domain as its user, as the REST handlers write them.
// Usage: tsx test/support/day-two-v1.ts <data dir> <records as JSON: [{ model, as, data }]>
import { fileURLToPath } from "node:url";
import { loadCreateApp, readProject } from "../../lib/cli/project.ts";
import { serviceTables } from "../../lib/cli/tables.ts";
import { domainListing } from "../../lib/core/list.ts";
import { runtimeValidation } from "../../lib/core/validation-compiler.ts";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoDbClient } from "../../lib/local/local-aws.ts";
import type { SeedRecord } from "../../lib/local/seed-data.ts";
import { runSeed } from "../../lib/local/seed-run.ts";
import { ensureTables } from "../../lib/local/tables.ts";

const [dataDir, recordsJson] = process.argv.slice(2);
if (!dataDir || !recordsJson) throw new Error("usage: tsx test/support/day-two-v1.ts <data dir> <records JSON>");
const root = fileURLToPath(new URL("../..", import.meta.url));
const project = readProject(root);
const tablePrefix = `${project.project}-local-`;
const createApp = await loadCreateApp(root, project);
const database = await startDynamoDbLocal({ dataDir });
try {
  const client = localDynamoDbClient(database.endpoint);
  try {
    const { created } = await ensureTables(client, serviceTables(createApp(), tablePrefix));
    process.stdout.write(`tables: ${created.join(", ")}\n`);
  } finally {
    client.destroy();
  }
  const report = await runSeed({
    createApp: () => createApp({ validation: runtimeValidation(), listing: domainListing }),
    data: { users: [], records: JSON.parse(recordsJson) as SeedRecord[] },
    credentials: undefined,
    endpoint: database.endpoint,
    tablePrefix,
    client: { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS },
    log: (line) => process.stdout.write(`${line}\n`),
  });
  if (!report) throw new Error("nothing was written");
} finally {
  await database.stop();
}
