import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, ResourceNotFoundException, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";

export interface EnsuredTables {
  created: string[];
  existing: string[];
}

async function exists(client: DynamoDBClient, name: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    throw error;
  }
}

/** Creates the table unless it exists; true when this call created it. */
async function ensureTable(client: DynamoDBClient, definition: CreateTableCommandInput): Promise<boolean> {
  const name = definition.TableName;
  if (name === undefined) throw new Error("table definition without TableName");
  let created = false;
  if (!(await exists(client, name))) {
    try {
      await client.send(new CreateTableCommand(definition));
      created = true;
    } catch (error) {
      // Another process (a parallel test run, a second `npm start`) created it first.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
  // A table is usable only once ACTIVE; DynamoDB Local is immediate, AWS takes seconds.
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: name });
  return created;
}

/** Idempotent: creates each table that does not exist yet and waits until all are ACTIVE. */
export async function ensureTables(client: DynamoDBClient, definitions: readonly CreateTableCommandInput[]): Promise<EnsuredTables> {
  const outcomes = await Promise.all(
    definitions.map(async (definition) => ({
      name: definition.TableName ?? "",
      created: await ensureTable(client, definition),
    })),
  );
  return {
    created: outcomes.filter((o) => o.created).map((o) => o.name),
    existing: outcomes.filter((o) => !o.created).map((o) => o.name),
  };
}
