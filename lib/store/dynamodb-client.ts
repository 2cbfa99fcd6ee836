import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { clientBudget, dynamodbBudget } from "./aws-budgets.ts";
import { countDynamoDBCalls } from "./dynamodb-metrics.ts";
import { traceAwsCalls } from "./aws-tracing.ts";

/**
 * `config` lets a local tool (the seeder) name its own endpoint and identity. Each attempt has
 * its connection and request timeouts, shortened to the invocation's time left (aws-budgets.ts);
 * a `maxAttempts` of the caller's replaces the budget's.
 */
export function createDocumentClient(
  endpoint = process.env.DYNAMODB_ENDPOINT,
  config: DynamoDBClientConfig = {},
  env: NodeJS.ProcessEnv = process.env,
): DynamoDBDocumentClient {
  const budget = dynamodbBudget(env);
  const client = new DynamoDBClient({
    ...(endpoint ? { endpoint } : {}),
    region: env.AWS_REGION ?? "us-east-1",
    ...clientBudget(typeof config.maxAttempts === "number" ? { ...budget, maxAttempts: config.maxAttempts } : budget),
    ...config,
  });
  // Without a logger the SDK's is a no-op, yet its logger middleware still copies every response
  // through the schema's sensitive-data filter first (a fifth of the CPU of reading 1,000 rows).
  if (!config.logger) client.middlewareStack.remove("loggerMiddleware");
  countDynamoDBCalls(client);
  traceAwsCalls(client, env);
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  return documents;
}

/**
 * The clients built by documentClient(), one per configuration: a function builds one, at first
 * use, and a process whose environment names another endpoint, budget or tracing switch (a test, a
 * tool) gets another rather than one built for an environment that no longer holds. The switch is
 * part of the key because the client reads it as it is built (aws-tracing.ts): without it, a client
 * built untraced would serve a traced stage's calls, or the reverse, by which was asked for first.
 * Only clients are kept here, each the same whoever asked; what a test adds to one it takes off.
 */
const clients = new Map<string, DynamoDBDocumentClient>();

/**
 * The client of the environment's configuration: `DYNAMODB_ENDPOINT` points the service at
 * DynamoDB Local, LocalStack or any other endpoint (without it the SDK's regional endpoint is
 * used), in `AWS_REGION`, with the budget of `DYNAMODB_REQUEST_TIMEOUT_MS` and
 * `DYNAMODB_CONNECTION_TIMEOUT_MS` (aws-budgets.ts).
 */
export function documentClient(env: NodeJS.ProcessEnv = process.env): DynamoDBDocumentClient {
  const key = [env.DYNAMODB_ENDPOINT, env.AWS_REGION, env.DYNAMODB_REQUEST_TIMEOUT_MS, env.DYNAMODB_CONNECTION_TIMEOUT_MS, env.TRACING === "true"].join("\n");
  let client = clients.get(key);
  if (!client) {
    client = createDocumentClient(env.DYNAMODB_ENDPOINT, {}, env);
    clients.set(key, client);
  }
  return client;
}
