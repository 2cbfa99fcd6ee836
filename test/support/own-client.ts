import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import type { RepositoryFactory } from "../../lib/store/repository.ts";
import { dynamoStore } from "../../lib/store/select.ts";

/**
 * The DynamoDB store dynamoStore() makes (lib/store/select.ts), on the same tables, over a client
 * of the calling file's own, built now under the environment then (its tracing switch included):
 * what the file adds to it (a counter, a barrier, faults) stays on it and goes when the file
 * destroys it, never on the client of a configuration documentClient() shares with the files after
 * it in the worker.
 */
export function ownDynamoStore(): { client: DynamoDBDocumentClient; store: RepositoryFactory } {
  const client = createDocumentClient();
  return { client, store: dynamoStore(undefined, client) };
}
