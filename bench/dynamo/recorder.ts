import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

export interface Call {
  command: string;
  capacity: number;
  /** Items DynamoDB evaluated: a Query's or Scan's ScannedCount, else the items it returned. */
  items: number;
  indexName?: string;
}

interface Capacity {
  CapacityUnits?: number;
}

// Data-plane commands that accept ReturnConsumedCapacity (table management does not).
const WITH_CAPACITY =
  /^(Get|Put|Update|Delete|Query|Scan|BatchGet|BatchWrite|TransactGet|TransactWrite|ExecuteStatement|BatchExecuteStatement|ExecuteTransaction)/;

interface Read {
  ScannedCount?: number;
  Items?: unknown[];
  Item?: unknown;
  Responses?: Record<string, unknown[]>;
}

function itemsRead(output: Read): number {
  if (typeof output.ScannedCount === "number") return output.ScannedCount;
  if (Array.isArray(output.Items)) return output.Items.length;
  if (output.Item !== undefined) return 1;
  return Object.values(output.Responses ?? {}).reduce((sum, items) => sum + items.length, 0);
}

function units(capacity: Capacity | Capacity[] | undefined): number {
  if (!capacity) return 0;
  return (Array.isArray(capacity) ? capacity : [capacity]).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
}

/**
 * Watches every command a document client sends: asks DynamoDB for the capacity it consumed
 * (ReturnConsumedCapacity TOTAL, which changes nothing else) and records command and units.
 */
export function recordCalls(client: DynamoDBDocumentClient): { calls: Call[]; reset(): void } {
  const calls: Call[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "unknown";
      const input = args.input as { ReturnConsumedCapacity?: string; IndexName?: string };
      if (WITH_CAPACITY.test(command)) input.ReturnConsumedCapacity = "TOTAL";
      const result = await next(args);
      const output = result.output as { ConsumedCapacity?: Capacity | Capacity[] } & Read;
      calls.push({
        command: command.replace(/Command$/, ""),
        capacity: units(output.ConsumedCapacity),
        items: itemsRead(output),
        ...(input.IndexName ? { indexName: input.IndexName } : {}),
      });
      return result;
    },
    { step: "initialize", name: "benchRecordCalls" },
  );
  return { calls, reset: () => void calls.splice(0) };
}

/** `{GetItem: 1}`: how many of each command. */
export function countByCommand(calls: readonly Call[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of calls) counts[call.command] = (counts[call.command] ?? 0) + 1;
  return counts;
}
