import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { realtimeTableNames } from "../../lib/realtime/tables.ts";
import type { Offline } from "./offline.ts";
import { waitFor } from "./wait.ts";

/**
 * Waits until `npm start`'s subscriptions table holds `count` rows whose document contains
 * `document`: a subscription is served once stored, so a write after this reaches it. Name the
 * document for the run (an operation name) so that rows of other files or runs do not count.
 */
export async function waitForStoredSubscriptions(offline: Offline, document: string, count: number, timeout = 60_000): Promise<void> {
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline.output())?.[1];
  if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline.output()}`);
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  try {
    const stored = async (): Promise<number> => {
      const rows = (await db.send(new ScanCommand({ TableName: realtimeTableNames("blog-local-").subscriptions, ConsistentRead: true }))).Items ?? [];
      return rows.filter((row) => String(row.query).includes(document)).length;
    };
    await waitFor(stored, (n) => n >= count, `${count} stored subscriptions of ${document}`, timeout);
  } finally {
    db.destroy();
  }
}
