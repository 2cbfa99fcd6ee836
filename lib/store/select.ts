import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { documentClient } from "./dynamodb-client.ts";
import { tableName } from "./dynamodb-tables.ts";
import { DynamoRepository } from "./dynamodb.ts";
import { functionStore } from "./select-records.ts";
import type { RepositoryFactory } from "./repository.ts";
import { tablePrefix } from "./table-prefix.ts";

// The stores chosen here list (DynamoDB through lib/query's planner): every function but those
// that read by key only (select-records.ts), composed with the domain's listing as well. `client`:
// one of the caller's own (a tool's, a test's), else the shared client of the environment's
// configuration (documentClient()).
export function dynamoStore(prefix?: string, client?: DynamoDBDocumentClient): RepositoryFactory {
  const chosen = tablePrefix("the DynamoDB store", prefix);
  return (model, table) => new DynamoRepository(client ?? documentClient(), tableName(chosen, model), table);
}

/** A listing function's store: DynamoDB, tables named `${TABLE_PREFIX}<Model>` (select-records.ts). */
export function storeFromEnv(env: NodeJS.ProcessEnv = process.env): RepositoryFactory {
  return functionStore(env, dynamoStore);
}
