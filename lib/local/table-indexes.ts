import { DescribeTableCommand, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput, DynamoDBClient, GlobalSecondaryIndex, GlobalSecondaryIndexDescription } from "@aws-sdk/client-dynamodb";
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

/** An index's key and projection, as a text two descriptions of the same index share. */
function indexShape(index: GlobalSecondaryIndex | GlobalSecondaryIndexDescription): string {
  const keys = (index.KeySchema ?? []).map((k) => `${k.AttributeName ?? ""}:${k.KeyType ?? ""}`).join(",");
  const projection = index.Projection?.ProjectionType ?? "ALL";
  const attributes = [...(index.Projection?.NonKeyAttributes ?? [])].sort().join(",");
  return `${keys}|${projection}|${attributes}`;
}

/**
 * Deletes the global secondary indexes an existing table has and its definition no longer
 * declares, or declares with another key or projection (ensureIndexes then creates it again
 * under its name): what a deploy's plan does first (lib/cli/plan/diff.mjs, deletions before
 * creations), one UpdateTable each, so a --persist database matches the deployed tables. Only at
 * start, after the plan check: live reload only grows the database. Returns `table.index` names.
 */
export async function removeIndexes(client: DynamoDBClient, definitions: readonly CreateTableCommandInput[]): Promise<string[]> {
  const removed: string[] = [];
  for (const definition of definitions) {
    if (definition.TableName === undefined) continue;
    const wanted = new Map((definition.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, indexShape(i)]));
    const { Table } = await client.send(new DescribeTableCommand({ TableName: definition.TableName }));
    for (const index of Table?.GlobalSecondaryIndexes ?? []) {
      if (wanted.get(index.IndexName) === indexShape(index)) continue;
      await untilIndexesActive(client, definition.TableName);
      await client.send(new UpdateTableCommand({ TableName: definition.TableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index.IndexName } }] }));
      await untilIndexGone(client, definition.TableName, index.IndexName ?? "");
      removed.push(`${definition.TableName}.${index.IndexName ?? ""}`);
    }
  }
  return removed;
}

/** Until DescribeTable no longer lists the index (DELETING first, then gone). */
async function untilIndexGone(client: DynamoDBClient, tableName: string, indexName: string): Promise<void> {
  const deadline = Date.now() + INDEX_WAIT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!(Table?.GlobalSecondaryIndexes ?? []).some((i) => i.IndexName === indexName) && Table?.TableStatus === "ACTIVE") return;
    if (Date.now() > deadline) throw new Error(`${tableName}: index ${indexName} was still there after ${INDEX_WAIT_MS / 1000} s`);
    await sleep(INDEX_POLL_MS);
  }
}

/**
 * Adds the global secondary indexes a definition declares and its existing table lacks (a new
 * relation or sort order on a live model), one UpdateTable each as DynamoDB requires. Indexes are
 * never dropped here (removeIndexes does, at start). Returns `table.index` names.
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
