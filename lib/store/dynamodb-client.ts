import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/**
 * One client per process, built at first use. `DYNAMODB_ENDPOINT` points the service at DynamoDB
 * Local, LocalStack or any other endpoint; without it the SDK's regional endpoint is used.
 */
let shared: DynamoDBDocumentClient | undefined;

export function createDocumentClient(endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...(endpoint ? { endpoint } : {}),
    region: process.env.AWS_REGION ?? "us-east-1",
    maxAttempts: 6,
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
}

export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient();
  return shared;
}
