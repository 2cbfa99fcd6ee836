import { documentClient } from "./dynamodb-client.ts";
import { DynamoRecords } from "./dynamodb-records.ts";
import { tableName } from "./dynamodb-tables.ts";
import { FileRepository } from "./file.ts";
import { MemoryRepository } from "./memory.ts";
import type { RepositoryFactory } from "./repository.ts";

export const memoryStore: RepositoryFactory = (_model, table) => new MemoryRepository(table);

export function fileStore(root: string): RepositoryFactory {
  return (model, table) => new FileRepository(root, model, table);
}

/**
 * `STORE=memory`, `STORE=file:<folder>`, or (the default, and the only choice in Lambda) DynamoDB
 * with tables named `${TABLE_PREFIX}<Model>`, built by `dynamo`.
 */
export function chooseStore(env: NodeJS.ProcessEnv, dynamo: (prefix?: string) => RepositoryFactory): RepositoryFactory {
  const choice = env.STORE ?? "dynamodb";
  if (choice === "memory") return memoryStore;
  if (choice.startsWith("file:")) return fileStore(choice.slice("file:".length));
  if (choice === "dynamodb") return dynamo(env.TABLE_PREFIX);
  throw new Error(`STORE='${choice}' is not a store: use dynamodb, memory or file:<folder>`);
}

/**
 * The store of a function that reads and writes by key and never lists (the record read, the
 * session routes): its DynamoDB tables come without the query planner, and the domain's listing is
 * not installed (lib/core/listing.ts). Every other function chooses from select.ts.
 */
export function recordStoreFromEnv(env: NodeJS.ProcessEnv = process.env): RepositoryFactory {
  return chooseStore(env, dynamoRecordStore);
}

export function dynamoRecordStore(prefix = process.env.TABLE_PREFIX ?? "blog-local-"): RepositoryFactory {
  return (model, table) => new DynamoRecords(documentClient(), tableName(prefix, model), table);
}
