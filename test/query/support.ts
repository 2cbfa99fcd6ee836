import { BatchWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { describeModel, type ModelInfo } from "../../lib/core/model-info.ts";
import { Model, type IndexDeclaration } from "../../lib/core/model.ts";
import type { JsonSchema } from "../../lib/core/schema.ts";
import type { Item, Key, ListRequest, Page, Repository } from "../../lib/store/repository.ts";

/** DynamoDB's cap on the requests of one BatchWriteItem. */
const BATCH_WRITE_MAX = 25;

/**
 * A model class built on the fly, so that test tables come out of the same `describeModel` and
 * `tableDefinition` code as the application's (key attribute types follow the schema).
 */
export function modelInfo(name: string, key: readonly string[], properties: Record<string, JsonSchema>, indexes: readonly IndexDeclaration[] = []): ModelInfo {
  const cls = class extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = key;
    static override readonly schema = { type: "object" as const, properties };
    static override readonly indexes = indexes;
    static {
      Object.defineProperty(this, "name", { value: name });
    }
  };
  return describeModel(cls);
}

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/** Sends the requests 25 at a time, in parallel, resending whatever DynamoDB left unprocessed. */
async function batchWrite(client: DynamoDBDocumentClient, tableName: string, requests: WriteRequest[]): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH_WRITE_MAX) chunks.push(requests.slice(i, i + BATCH_WRITE_MAX));
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending: WriteRequest[] = chunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 8) throw new Error(`BatchWrite left ${pending.length} requests unprocessed`);
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
        const result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (result.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      }
    }),
  );
}

export function putItems(client: DynamoDBDocumentClient, tableName: string, items: readonly Item[]): Promise<void> {
  return batchWrite(
    client,
    tableName,
    items.map((item) => ({ PutRequest: { Item: item } })),
  );
}

export function deleteItems(client: DynamoDBDocumentClient, tableName: string, keys: readonly Key[]): Promise<void> {
  return batchWrite(
    client,
    tableName,
    keys.map((key) => ({ DeleteRequest: { Key: key } })),
  );
}

/** Every page of a listing, following `next` until it is absent. */
export async function allPages(repository: Repository, request: Omit<ListRequest, "after">): Promise<Page[]> {
  const pages: Page[] = [];
  let after: ListRequest["after"];
  for (let count = 0; count < 10_000; count++) {
    const page = await repository.list({ ...request, ...(after ? { after } : {}) });
    pages.push(page);
    if (!page.next) return pages;
    after = page.next;
  }
  throw new Error("pagination did not end after 10,000 pages");
}
