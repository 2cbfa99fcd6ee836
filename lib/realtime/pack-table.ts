import { BatchGetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TTL_ATTRIBUTE } from "./tables.ts";
import type { PackEntry, PackTable } from "./topic-packs.ts";

/** Packs and documents share the subscriptions table: partitions no connection id can name (those have no NUL). */
const PACK = "\u0000pack:";
const DOCUMENT = "\u0000doc:";
/** A pack item's count of its entries' bytes (topic-packs.ts, `SLOT_BYTES`): a number, never taken for an entry. */
const COUNT = "bytes";
/** The key attributes of the subscriptions table, which a pack item carries besides its entries. */
const KEY = new Set(["connectionId", "id"]);
/** The sort key's largest character: an inclusive upper bound just below the next share's first bucket. */
const TOP = "\u{10FFFF}";
/** BatchGetItem takes at most 100 keys a call. */
const KEYS_PER_GET = 100;

function below(bound: string): string {
  return `${String.fromCharCode(bound.charCodeAt(0) - 1)}${TOP}`;
}

function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === "ConditionalCheckFailedException";
}

/**
 * The packs in DynamoDB, in the subscriptions table: a subscribe is one conditional UpdateItem
 * of one attribute and its item's count (no read), a share is one eventually consistent Query of its topic's pack partition
 * over its buckets (read units by the bytes returned, not per item), documents are one
 * BatchGetItem for those an instance has not seen.
 */
export function dynamoPackTable(client: DynamoDBDocumentClient, tableName: string): PackTable {
  return {
    async addEntry(topic, item, name, value, bytes, cap) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { connectionId: `${PACK}${topic}`, id: item },
            UpdateExpression: "SET #e = :v ADD #n :w",
            // The count moves with the entry in one write: racing subscribers never take one item past the cap.
            ConditionExpression: "attribute_not_exists(#n) OR #n <= :room",
            ExpressionAttributeNames: { "#e": name, "#n": COUNT },
            ExpressionAttributeValues: { ":v": value, ":w": bytes, ":room": cap - bytes },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async removeEntry(topic, item, name, bytes) {
      await client
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: { connectionId: `${PACK}${topic}`, id: item },
            UpdateExpression: bytes === undefined ? "REMOVE #e" : "REMOVE #e ADD #n :w",
            // An update makes the item it does not find: only where the entry is, so it is counted out once.
            ConditionExpression: "attribute_exists(#e)",
            ExpressionAttributeNames: { "#e": name, ...(bytes === undefined ? {} : { "#n": COUNT }) },
            ...(bytes === undefined ? {} : { ExpressionAttributeValues: { ":w": -bytes } }),
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    },

    async *entries(topic, low, upper) {
      // DynamoDB has no exclusive bound and refuses an empty key value: the first share has no lower bound, the last no upper.
      const condition: [string, Record<string, string>] =
        low === "" && upper === undefined
          ? ["", {}]
          : low === ""
            ? [" AND #b <= :high", { ":high": below(upper as string) }]
            : upper === undefined
              ? [" AND #b >= :low", { ":low": low }]
              : [" AND #b BETWEEN :low AND :high", { ":low": low, ":high": below(upper) }];
      let start: Record<string, unknown> | undefined;
      do {
        const result = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: `#p = :p${condition[0]}`,
            ExpressionAttributeNames: condition[0] === "" ? { "#p": "connectionId" } : { "#p": "connectionId", "#b": "id" },
            ExpressionAttributeValues: { ":p": `${PACK}${topic}`, ...condition[1] },
            ConsistentRead: false,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        const entries: PackEntry[] = [];
        for (const item of result.Items ?? []) {
          const id = String(item.id);
          // Entries are the string attributes but the key (the count is a number).
          for (const [name, value] of Object.entries(item)) if (!KEY.has(name) && typeof value === "string") entries.push({ item: id, name, value });
        }
        if (entries.length > 0) yield entries;
        start = result.LastEvaluatedKey;
      } while (start);
    },

    async putDocument(topic, ref, document, expiresAt) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { connectionId: `${DOCUMENT}${topic}`, id: ref },
            UpdateExpression: "SET #d = :d, #t = :t",
            ConditionExpression: "attribute_not_exists(#d) OR #d = :d",
            ExpressionAttributeNames: { "#d": "document", "#t": TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ":d": document, ":t": expiresAt },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async documents(topic, refs) {
      const found = new Map<string, string>();
      for (const item of await this.items(refs.map((ref) => ({ connectionId: `${DOCUMENT}${topic}`, id: ref })))) {
        if (typeof item.document === "string") found.set(String(item.id), item.document);
      }
      return found;
    },

    async items(wanted) {
      const found: Record<string, unknown>[] = [];
      for (let at = 0; at < wanted.length; at += KEYS_PER_GET) {
        let keys: Record<string, unknown>[] = wanted.slice(at, at + KEYS_PER_GET);
        while (keys.length > 0) {
          const result = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: false } } }));
          found.push(...(result.Responses?.[tableName] ?? []));
          keys = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
        }
      }
      return found;
    },
  };
}
