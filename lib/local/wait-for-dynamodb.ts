import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { setTimeout as sleep } from "node:timers/promises";
import { localDynamoDbClient } from "./local-aws.ts";

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Aborted when waiting is pointless (the server process died). */
  signal?: AbortSignal;
}

/**
 * Polls ListTables until the endpoint answers: the JVM opens its port well before the
 * service behind it is usable, so a TCP probe would say "ready" too early.
 */
export async function waitForDynamoDb(endpoint: string, options: WaitOptions): Promise<void> {
  const { timeoutMs, intervalMs = 100, signal } = options;
  const client = localDynamoDbClient(endpoint, 1);
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  try {
    while (Date.now() < deadline) {
      signal?.throwIfAborted();
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: signal });
        return;
      } catch (error) {
        lastError = error;
      }
      signal?.throwIfAborted();
      await sleep(intervalMs);
    }
  } finally {
    client.destroy();
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : "";
  throw new Error(`DynamoDB at ${endpoint} did not answer within ${timeoutMs} ms${reason}`);
}
