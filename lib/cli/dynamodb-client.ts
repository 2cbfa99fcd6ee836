import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../store/local-credentials.ts";

/** Where a `webda` command's DynamoDB is: `--endpoint`, and `--local` (DynamoDB Local's fixed region and credentials). */
export interface CommandDatabase {
  endpoint: string | undefined;
  local: boolean;
}

/**
 * The client every `webda` command that touches tables builds: AWS's region and credentials
 * chain unless `--local`. `maxAttempts` is the command's own: a long copy or migration rides out
 * more throttling than a one-row delete.
 */
export function commandDynamoDBClient(db: CommandDatabase, env: NodeJS.ProcessEnv, maxAttempts: number): DynamoDBClient {
  return new DynamoDBClient({
    ...(db.endpoint ? { endpoint: db.endpoint } : {}),
    ...(db.local ? { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS } : { region: env.AWS_REGION ?? "us-east-1" }),
    maxAttempts,
  });
}
