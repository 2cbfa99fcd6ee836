import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { currentCost } from "../core/cost.ts";

/** Commands that take ReturnConsumedCapacity (table administration does not). */
const METERED = new Set([
  "GetCommand", "PutCommand", "UpdateCommand", "DeleteCommand", "QueryCommand", "ScanCommand",
  "BatchGetCommand", "BatchWriteCommand", "TransactGetCommand", "TransactWriteCommand",
  "ExecuteStatementCommand", "BatchExecuteStatementCommand",
]);

interface CostOutput {
  ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
  ScannedCount?: number;
  Items?: unknown[];
  Item?: unknown;
  Responses?: Record<string, unknown[]> | unknown[];
}

function capacityOf(output: CostOutput): number {
  const consumed = output.ConsumedCapacity;
  const all = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return all.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
}

function itemsOf(output: CostOutput): number {
  if (typeof output.ScannedCount === "number") return output.ScannedCount;
  if (Array.isArray(output.Items)) return output.Items.length;
  if (output.Item !== undefined) return 1;
  const responses = output.Responses;
  if (Array.isArray(responses)) return responses.length;
  return responses ? Object.values(responses).reduce((sum, items) => sum + items.length, 0) : 0;
}

/**
 * Counts each call of `client` made while a request's cost is measured (lib/core/cost.ts): the call,
 * the capacity DynamoDB reports (asked for with ReturnConsumedCapacity: TOTAL, which costs nothing)
 * and the items it read. Calls outside a measured request are left as they are.
 */
export function meterCost(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const cost = currentCost();
      if (!cost) return next(args);
      const input = args.input as Record<string, unknown>;
      if (METERED.has(context.commandName ?? "") && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = "TOTAL";
      const result = await next(args);
      const output = result.output as CostOutput;
      cost.dynamodbCalls++;
      cost.consumedCapacity += capacityOf(output);
      cost.itemsRead += itemsOf(output);
      return result;
    },
    { step: "initialize", name: "requestCost" },
  );
}
