import type { DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { createDocumentClient } from "../store/dynamodb-client.ts";
import { tableName } from "../store/dynamodb-tables.ts";
import { DynamoRepository } from "../store/dynamodb.ts";
import type { RepositoryFactory } from "../store/repository.ts";

/**
 * Repositories on a DynamoDB named explicitly (not through the process environment, which in
 * `npm start` belongs to the parent of the handlers, not to them), with one client for all tables.
 */
export function seedStore(endpoint: string | undefined, prefix: string, config: DynamoDBClientConfig): { store: RepositoryFactory; close: () => void } {
  const client = createDocumentClient(endpoint, config);
  return {
    store: (model, table) => new DynamoRepository(client, tableName(prefix, model), table),
    close: () => client.destroy(),
  };
}
