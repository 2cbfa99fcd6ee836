import { ExecuteStatementCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { TableShape } from "../core/model-info.ts";
import { assertPartitionField } from "./keys.ts";
import type { Item, KeyValue } from "./repository.ts";

// Reads of many partitions at once by key (the sessions or idents of a user, the join rows of many
// parents): PartiQL `IN` lists on a partition key, which the record-read functions need without
// the listing's planner (dynamodb-batch-reads.ts lists with these).

/** PartiQL's documented cap on partition-key values in one `IN` list. */
export const PARTIQL_IN_MAX = 50;

/** What the key reads need of the repository that owns the table: its client, table and error mapping. */
export interface KeySource {
  client: DynamoDBDocumentClient;
  tableName: string;
  table: TableShape;
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * PartiQL `SELECT ... WHERE "field" IN [...]` on the partition key of the table or an index:
 * DynamoDB serves it as key lookups (no Scan), up to 50 values per statement, paged by NextToken.
 */
export async function findByField(source: KeySource, field: string, values: KeyValue[]): Promise<Item[]> {
  const { index } = assertPartitionField(source.table, field);
  const unique = [...new Set(values)];
  const found: Item[] = [];
  for (let i = 0; i < unique.length; i += PARTIQL_IN_MAX) {
    found.push(...((await readIn(source, field, index, unique.slice(i, i + PARTIQL_IN_MAX), Infinity)) as Item[]));
  }
  return found;
}

/**
 * Every item of the table or `index` whose `field` is one of `values` (at most PARTIQL_IN_MAX),
 * following NextToken; undefined once more than `budget` items were read.
 */
export async function readIn(source: KeySource, field: string, index: string | undefined, values: KeyValue[], budget: number): Promise<Item[] | undefined> {
  if (!/^[A-Za-z0-9_]+$/.test(field)) throw new Error(`cannot use the attribute name '${field}' in a PartiQL statement`);
  const from = index ? `"${source.tableName}"."${index}"` : `"${source.tableName}"`;
  const statement = `SELECT * FROM ${from} WHERE "${field}" IN [${values.map(() => "?").join(", ")}]`;
  const found: Item[] = [];
  let next: string | undefined;
  do {
    const token = next;
    const result = await source.run(() =>
      source.client.send(
        new ExecuteStatementCommand({
          Statement: statement,
          Parameters: values,
          // Reads right after a write see it on the table; an index is eventually consistent.
          ...(index ? {} : { ConsistentRead: true }),
          ...(token ? { NextToken: token } : {}),
        }),
      ),
    );
    found.push(...((result.Items ?? []) as Item[]));
    if (found.length > budget) return undefined;
    next = result.NextToken;
  } while (next);
  return found;
}
