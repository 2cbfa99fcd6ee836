import { DescribeTableCommand, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { setTimeout as sleep } from "node:timers/promises";

const INDEX_WAIT_MS = 120_000;
const INDEX_POLL_MS = 200;

/**
 * Until the table and every index on it are ACTIVE. The table stays ACTIVE while a new index is
 * CREATING, and DynamoDB refuses a second index on a table while one is being created
 * (LimitExceededException), which DynamoDB Local on a busy machine showed.
 */
async function untilIndexesActive(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + INDEX_WAIT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const busy = Table?.TableStatus !== "ACTIVE" || (Table.GlobalSecondaryIndexes ?? []).some((i) => i.IndexStatus !== undefined && i.IndexStatus !== "ACTIVE");
    if (!busy) return;
    if (Date.now() > deadline) throw new Error(`${tableName}: its indexes were not ACTIVE after ${INDEX_WAIT_MS / 1000} s`);
    await sleep(INDEX_POLL_MS);
  }
}

/**
 * Adds the global secondary indexes a definition declares and its existing table lacks (a new
 * relation or sort order on a live model), one UpdateTable each as DynamoDB requires. Indexes are
 * never dropped here: a running `npm start` only grows its database. Returns `table.index` names.
 */
export async function ensureIndexes(client: DynamoDBClient, definitions: readonly CreateTableCommandInput[]): Promise<string[]> {
  const added: string[] = [];
  for (const definition of definitions) {
    const wanted = definition.GlobalSecondaryIndexes ?? [];
    if (wanted.length === 0 || definition.TableName === undefined) continue;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: definition.TableName }));
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    for (const index of wanted) {
      if (present.has(index.IndexName)) continue;
      const keys = new Set(index.KeySchema?.map((k) => k.AttributeName));
      await client.send(
        new UpdateTableCommand({
          TableName: definition.TableName,
          AttributeDefinitions: definition.AttributeDefinitions?.filter((a) => keys.has(a.AttributeName)),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: index.IndexName,
                KeySchema: index.KeySchema,
                Projection: index.Projection,
                ...(index.ProvisionedThroughput ? { ProvisionedThroughput: index.ProvisionedThroughput } : {}),
              },
            },
          ],
        }),
      );
      await untilIndexesActive(client, definition.TableName);
      added.push(`${definition.TableName}.${index.IndexName ?? ""}`);
    }
  }
  return added;
}
