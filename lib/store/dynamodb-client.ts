import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { clientBudget, dynamodbBudget } from "./aws-budgets.ts";
import { countDynamoDBCalls } from "./dynamodb-metrics.ts";
import { traceAwsCalls } from "./aws-tracing.ts";

/**
 * One client per process, built at first use. `DYNAMODB_ENDPOINT` points the service at DynamoDB
 * Local, LocalStack or any other endpoint; without it the SDK's regional endpoint is used.
 */
let shared: DynamoDBDocumentClient | undefined;

/**
 * `config` lets a local tool (the seeder) name its own endpoint and identity. Each attempt has
 * its connection and request timeouts, shortened to the invocation's time left (aws-budgets.ts);
 * a `maxAttempts` of the caller's replaces the budget's.
 */
export function createDocumentClient(endpoint = process.env.DYNAMODB_ENDPOINT, config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...(endpoint ? { endpoint } : {}),
    region: process.env.AWS_REGION ?? "us-east-1",
    ...clientBudget(typeof config.maxAttempts === "number" ? { ...dynamodbBudget(), maxAttempts: config.maxAttempts } : dynamodbBudget()),
    ...config,
  });
  // Without a logger the SDK's is a no-op, yet its logger middleware still copies every response
  // through the schema's sensitive-data filter first (a fifth of the CPU of reading 1,000 rows).
  if (!config.logger) client.middlewareStack.remove("loggerMiddleware");
  countDynamoDBCalls(client);
  traceAwsCalls(client);
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  return documents;
}

export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient();
  return shared;
}
