import { DescribeTableCommand, UpdateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";

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
      await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: definition.TableName });
      added.push(`${definition.TableName}.${index.IndexName ?? ""}`);
    }
  }
  return added;
}
