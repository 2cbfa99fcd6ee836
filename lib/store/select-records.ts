import { ConfigurationError } from "../core/config.ts";
import { documentClient } from "./dynamodb-client.ts";
import { DynamoRecords } from "./dynamodb-records.ts";
import { tableName } from "./dynamodb-tables.ts";
import type { RepositoryFactory } from "./repository.ts";
import { tablePrefix } from "./table-prefix.ts";

/**
 * A function stores in DynamoDB, with tables named `${TABLE_PREFIX}<Model>`: in Lambda, and under
 * `npm start` (DynamoDB Local). The memory and file stores are for applications run in-process
 * (local-stores.ts), so they are not in any function's bundle; a function given another `STORE`
 * refuses to start rather than ignore it.
 */
export function functionStore(env: NodeJS.ProcessEnv, dynamo: (prefix?: string) => RepositoryFactory): RepositoryFactory {
  const choice = env.STORE ?? "dynamodb";
  if (choice !== "dynamodb") {
    throw new ConfigurationError(
      `STORE='${choice}': a function stores in DynamoDB only (the memory and file stores run applications in-process: lib/store/local-stores.ts)`,
    );
  }
  return dynamo(tablePrefix("a function's store", undefined, env));
}

/**
 * The store of a function that reads and writes by key and never lists (the record read, the
 * session routes): its DynamoDB tables come without the query planner, and the function is composed
 * without the domain's listing (lib/core/listing.ts). Every other function chooses from select.ts.
 */
export function recordStoreFromEnv(env: NodeJS.ProcessEnv = process.env): RepositoryFactory {
  return functionStore(env, dynamoRecordStore);
}

export function dynamoRecordStore(prefix?: string): RepositoryFactory {
  const chosen = tablePrefix("the DynamoDB record store", prefix);
  return (model, table) => new DynamoRecords(documentClient(), tableName(chosen, model), table);
}
