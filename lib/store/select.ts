import { documentClient } from "./dynamodb-client.ts";
import { tableName } from "./dynamodb-tables.ts";
import { DynamoRepository } from "./dynamodb.ts";
import { FileRepository } from "./file.ts";
import { MemoryRepository } from "./memory.ts";
import type { RepositoryFactory } from "./repository.ts";

export const memoryStore: RepositoryFactory = (_model, table) => new MemoryRepository(table);

export function fileStore(root: string): RepositoryFactory {
  return (model, table) => new FileRepository(root, model, table);
}

export function dynamoStore(prefix = process.env.TABLE_PREFIX ?? "blog-local-"): RepositoryFactory {
  return (model, table) => new DynamoRepository(documentClient(), tableName(prefix, model), table);
}

/**
 * `STORE=memory`, `STORE=file:<folder>`, or (the default, and the only choice in Lambda) DynamoDB
 * with tables named `${TABLE_PREFIX}<Model>`.
 */
export function storeFromEnv(env: NodeJS.ProcessEnv = process.env): RepositoryFactory {
  const choice = env.STORE ?? "dynamodb";
  if (choice === "memory") return memoryStore;
  if (choice.startsWith("file:")) return fileStore(choice.slice("file:".length));
  if (choice === "dynamodb") return dynamoStore(env.TABLE_PREFIX);
  throw new Error(`STORE='${choice}' is not a store: use dynamodb, memory or file:<folder>`);
}
