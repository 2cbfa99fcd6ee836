import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../store/local-credentials.ts";

// Declared in lib/store, where the webda command (lib/cli) reads them too; re-exported for the local tools.
export { LOCAL_CREDENTIALS, LOCAL_REGION };

/** Environment that makes any AWS SDK client in a child process talk with the dummy identity. */
export function localAwsEnv(): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: LOCAL_REGION,
  };
}

/** A client for a local endpoint that fails fast instead of retrying a dead socket. */
export function localDynamoDbClient(endpoint: string, maxAttempts = 3): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 10_000 },
  });
}
