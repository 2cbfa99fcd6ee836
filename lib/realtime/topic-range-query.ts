import { QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Item, PageSizes } from "../store/repository.ts";
import { lowerBound, upperBound, type ConnectionRange } from "./connection-ranges.ts";
import { TOPIC_INDEX } from "./tables.ts";

/** Reads one share of a topic's rows: `by_topic`'s partition, connection ids within the range. */
export type TopicRangeRead = (topic: string, range: ConnectionRange, sizes: PageSizes) => AsyncIterable<Item[]>;

/** The sort key's largest character: an inclusive upper bound just below the next range's first id. */
const TOP = "\u{10FFFF}";

/** The largest string sorting before `bound` (its first character minus one, then the largest character). */
function below(bound: string): string {
  return `${String.fromCharCode(bound.charCodeAt(0) - 1)}${TOP}`;
}

/**
 * A Query of `by_topic` on the topic with `connectionId BETWEEN` the range's bounds (DynamoDB has
 * no exclusive bound: the next range's first character minus one, then the largest character).
 */
export function dynamoTopicRangeRead(client: DynamoDBDocumentClient, tableName: string): TopicRangeRead {
  return async function* read(topic, range, sizes) {
    const upper = upperBound(range);
    const low = lowerBound(range);
    // DynamoDB refuses an empty string as a key value: the first range has no lower bound, the last no upper.
    const bounds: [string, Record<string, string>] =
      low === "" && upper === undefined
        ? ["", {}]
        : low === ""
          ? [" AND #c <= :high", { ":high": below(upper as string) }]
          : upper === undefined
            ? [" AND #c >= :low", { ":low": low }]
            : [" AND #c BETWEEN :low AND :high", { ":low": low, ":high": below(upper) }];
    let start: Record<string, unknown> | undefined;
    let limit = Math.max(1, sizes.first);
    do {
      const result = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: TOPIC_INDEX,
          KeyConditionExpression: `#t = :t${bounds[0]}`,
          ExpressionAttributeNames: bounds[0] === "" ? { "#t": "topic" } : { "#t": "topic", "#c": "connectionId" },
          ExpressionAttributeValues: { ":t": topic, ...bounds[1] },
          Limit: limit,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      if (result.Items && result.Items.length > 0) yield result.Items as Item[];
      start = result.LastEvaluatedKey;
      limit = Math.min(limit * 2, Math.max(limit, sizes.largest));
    } while (start);
  };
}
