import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { ensureTables } from "../../lib/local/tables.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Endpoint of the DynamoDB every test file shares (also in `process.env.DYNAMODB_ENDPOINT`). */
    dynamodbEndpoint: string;
    /** Prefix of the application's tables (also in `process.env.TABLE_PREFIX`). */
    tablePrefix: string;
  }
}

// Not `blog-local-`: a run against the `npm start` database must not touch its data.
const TEST_TABLE_PREFIX = "blog-test-";

/** Puts the dummy identity in the environment; a real one (symbols in its keys) is refused by DynamoDB Local. */
function useLocalIdentity(force: boolean): void {
  for (const [name, value] of Object.entries(localAwsEnv())) {
    if (force || process.env[name] === undefined) process.env[name] = value;
  }
  if (force) {
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
  }
}

/**
 * Gives the whole run one DynamoDB with the application's tables: the one `DYNAMODB_ENDPOINT`
 * names, or a DynamoDB Local started here and stopped by the returned teardown. Environment
 * set here reaches the test workers, which are forked after global setup.
 */
export async function setupDynamoDb(project: TestProject, tables: (prefix: string) => CreateTableCommandInput[]): Promise<() => Promise<void>> {
  const external = process.env.DYNAMODB_ENDPOINT || undefined;
  const db = external ? undefined : await startDynamoDbLocal();
  const endpoint = external ?? db?.endpoint ?? "";
  const prefix = process.env.TABLE_PREFIX ?? TEST_TABLE_PREFIX;

  useLocalIdentity(db !== undefined);
  process.env.DYNAMODB_ENDPOINT = endpoint;
  // This one DynamoDB Local serves every test worker at once and can take seconds to answer on a
  // loaded machine: in-process tests give an attempt longer than a deployed stage does. The
  // timeouts themselves are tested against stalled endpoints with the deployed figures
  // (test/store/aws-budgets.test.ts); `npm start` (the e2e tests) keeps the deployed default.
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= "30000";
  // A burst of hundreds of calls (test/realtime/subscription-burst.test.ts) waits seconds for the
  // JVM to accept its connections when two workers and a service share the 2 cores.
  process.env.DYNAMODB_CONNECTION_TIMEOUT_MS ??= "15000";
  process.env.TABLE_PREFIX = prefix;
  project.provide("dynamodbEndpoint", endpoint);
  project.provide("tablePrefix", prefix);

  // Same endpoint, region and credentials as the code under test will use.
  const client = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION });
  try {
    await ensureTables(client, tables(prefix));
  } catch (error) {
    await db?.stop();
    throw error;
  } finally {
    client.destroy();
  }
  return async () => {
    await db?.stop();
  };
}
