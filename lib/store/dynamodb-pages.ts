import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { KeySource } from "./dynamodb-partiql.ts";
import { assertPartitionField } from "./keys.ts";
import type { Item, KeyValue, PageSizes } from "./repository.ts";

/**
 * `findByField` page by page, so a caller can act on the first items while the rest are read: a
 * Query per value, all started at once and their pages yielded value by value, each next page read
 * while the caller works on the one before. A value's first page holds at most `sizes.first` items,
 * each later one at most twice the one before and never more than `sizes.largest`. A Query, not
 * the PartiQL `IN` of `findByField`: with a Limit, DynamoDB Local answers a Query's first page
 * several times faster (it reads the whole partition for a limited PartiQL page).
 */
export async function* findByFieldPages(source: KeySource, field: string, values: KeyValue[], sizes: PageSizes): AsyncIterable<Item[]> {
  const { index } = assertPartitionField(source.table, field);
  const query = (value: KeyValue, limit: number, start?: Record<string, unknown>) =>
    source.run(() =>
      source.client.send(
        new QueryCommand({
          TableName: source.tableName,
          // An index is eventually consistent; the table is read as findByField reads it.
          ...(index ? { IndexName: index } : { ConsistentRead: true }),
          KeyConditionExpression: "#f = :v",
          ExpressionAttributeNames: { "#f": field },
          ExpressionAttributeValues: { ":v": value },
          Limit: limit,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      ),
    );
  const size = Math.max(1, sizes.first);
  const largest = Math.max(size, sizes.largest);
  // Every read is started before the caller works on the page before it, and awaited in turn: a
  // failure must not go unobserved meanwhile.
  const started = <T>(read: Promise<T>): Promise<T> => {
    read.catch(() => undefined);
    return read;
  };
  const firstPages = [...new Set(values)].map((value) => ({ value, page: started(query(value, size)) }));
  for (const { value, page } of firstPages) {
    let result = await page;
    for (let limit = Math.min(size * 2, largest); ; limit = Math.min(limit * 2, largest)) {
      const next = result.LastEvaluatedKey ? started(query(value, limit, result.LastEvaluatedKey)) : undefined;
      if (result.Items && result.Items.length > 0) yield result.Items as Item[];
      if (!next) break;
      result = await next;
    }
  }
}
