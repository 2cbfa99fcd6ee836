import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Application } from "../../lib/core/application.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { tableDefinitions } from "../../lib/store/dynamodb-tables.ts";

/** The application's model tables under `prefix` in the tests' DynamoDB Local (global setup's). */
export async function createModelTables(app: Application, prefix: string): Promise<void> {
  const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION });
  try {
    await ensureTables(admin, tableDefinitions(app, prefix));
  } finally {
    admin.destroy();
  }
}
