import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { countDynamoDBCall, countDynamoDBThrottle } from "../core/metrics.ts";

/** The operations that can report their consumed capacity (the others take no such member). */
const REPORTING = new Set([
  "GetItemCommand",
  "PutItemCommand",
  "UpdateItemCommand",
  "DeleteItemCommand",
  "QueryCommand",
  "ScanCommand",
  "BatchGetItemCommand",
  "BatchWriteItemCommand",
  "TransactGetItemsCommand",
  "TransactWriteItemsCommand",
  "ExecuteStatementCommand",
  "BatchExecuteStatementCommand",
  "ExecuteTransactionCommand",
  // The same operations through the document client, which names its own commands.
  "GetCommand",
  "PutCommand",
  "UpdateCommand",
  "DeleteCommand",
  "BatchGetCommand",
  "BatchWriteCommand",
  "TransactGetCommand",
  "TransactWriteCommand",
]);
const THROTTLES = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]);

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/**
 * Read and write units of a response's `ConsumedCapacity` (one entry, or one per table for batches
 * and transactions). With `TOTAL` DynamoDB reports only `CapacityUnits`: a read call's are reads,
 * a write call's writes.
 */
export function unitsOf(consumed: Capacity | Capacity[] | undefined, writes: boolean): { read: number; write: number } {
  let read = 0;
  let write = 0;
  for (const entry of [consumed ?? []].flat()) {
    if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
      read += entry.ReadCapacityUnits ?? 0;
      write += entry.WriteCapacityUnits ?? 0;
    } else if (writes) write += entry.CapacityUnits ?? 0;
    else read += entry.CapacityUnits ?? 0;
  }
  return { read, write };
}

const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

interface Output {
  ConsumedCapacity?: Capacity | Capacity[];
  ScannedCount?: number;
  Items?: unknown[];
  Item?: unknown;
  Responses?: Record<string, unknown[]> | unknown[];
}

/** Items a call made DynamoDB evaluate: a Query's or Scan's ScannedCount, else the items it returned. */
export function itemsOf(output: Output): number {
  if (typeof output.ScannedCount === "number") return output.ScannedCount;
  if (Array.isArray(output.Items)) return output.Items.length;
  if (output.Item !== undefined) return 1;
  const responses = output.Responses;
  if (Array.isArray(responses)) return responses.length;
  let items = 0;
  if (responses) for (const table in responses) items += responses[table]?.length ?? 0;
  return items;
}

/**
 * Counts every call the application makes into the invocation's tally (lib/core/metrics.ts), which
 * both its metrics and its request log line read: asks DynamoDB for the capacity each call
 * consumed (a member of the request, no extra call), counts the items it read, and counts
 * throttled attempts inside the SDK's retries.
 */
export function countDynamoDBCalls(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? "";
      const reporting = REPORTING.has(name);
      // A copy: the caller's input object (perhaps reused) is left as it was.
      const input = reporting ? { ...(args.input as object), ReturnConsumedCapacity: "TOTAL" } : args.input;
      let units = { read: 0, write: 0 };
      let items = 0;
      try {
        const result = await next({ ...args, input });
        const output = result.output as Output;
        if (reporting)
          units = unitsOf(
            output.ConsumedCapacity,
            WRITES.test(name) || (name === "ExecuteStatementCommand" && !/^\s*select/i.test(String((args.input as { Statement?: string }).Statement))),
          );
        items = itemsOf(output);
        return result;
      } finally {
        countDynamoDBCall(units.read, units.write, items);
      }
    },
    { step: "initialize", name: "metricsCallsMiddleware", override: true },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (THROTTLES.has((error as Error).name)) countDynamoDBThrottle();
        throw error;
      }
    },
    // Below the retry middleware (finalizeRequest, high): every attempt passes here.
    { step: "finalizeRequest", priority: "low", name: "metricsThrottlesMiddleware", override: true },
  );
}
