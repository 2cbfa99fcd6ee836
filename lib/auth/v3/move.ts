import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Row } from "./field-map.ts";

/** What became of one key move. */
export type MoveOutcome =
  | "moved"
  /** Another process moved this very row first (a login's lazy upgrade racing the command). */
  | "gone"
  /** The v4 key is held by another row: a case variant of the same email. Nothing was written. */
  | "conflict";

export interface Move {
  oldKey: string;
  upgraded: Row;
}

/** TransactWriteItems holds at most 100 actions: 50 moves of two actions each. */
export const MOVES_PER_TRANSACTION = 50;
const ATTEMPTS = 8;

function actions(table: string, move: Move): NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]["TransactItems"]> {
  return [
    { Put: { TableName: table, Item: move.upgraded, ConditionExpression: "attribute_not_exists(#k)", ExpressionAttributeNames: { "#k": "uuid" } } },
    { Delete: { TableName: table, Key: { uuid: move.oldKey }, ConditionExpression: "attribute_exists(#k)", ExpressionAttributeNames: { "#k": "uuid" } } },
  ];
}

/**
 * Moves idents from their v3 keys to their v4 keys. Each move is a put of the new row if its key
 * is free and a delete of the old one if it still exists, inside ONE TransactWriteItems, so a
 * crash at any point leaves exactly one copy: a rerun finds either the v3 row (nothing happened)
 * or the v4 row (all happened). Up to 50 moves share a transaction, for throughput; when
 * DynamoDB cancels one, its reasons say which moves failed, and the others are sent again.
 * The moves must name distinct v4 keys (one transaction cannot touch an item twice).
 */
export async function moveIdents(client: DynamoDBDocumentClient, table: string, moves: Move[]): Promise<MoveOutcome[]> {
  const outcomes: (MoveOutcome | undefined)[] = new Array(moves.length).fill(undefined);
  for (let start = 0; start < moves.length; start += MOVES_PER_TRANSACTION) {
    let pending = moves.slice(start, start + MOVES_PER_TRANSACTION).map((move, i) => ({ move, index: start + i }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: pending.flatMap(({ move }) => actions(table, move)) }));
        for (const { index } of pending) outcomes[index] = "moved";
        pending = [];
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const retry: typeof pending = [];
        pending.forEach((entry, i) => {
          const put = reasons[2 * i]?.Code;
          const del = reasons[2 * i + 1]?.Code;
          if (del === "ConditionalCheckFailed") outcomes[entry.index] = "gone";
          // The target exists and the source too: a case variant holds it (or this row was moved
          // and a v3 writer recreated the old key meanwhile). Either way the row is left as is.
          else if (put === "ConditionalCheckFailed") outcomes[entry.index] = "conflict";
          else retry.push(entry);
        });
        // Nothing identified (only conflicts with concurrent transactions): wait, then try again.
        if (retry.length === pending.length) {
          if (attempt >= ATTEMPTS) throw new Error(`moving ${pending.length} idents kept colliding with concurrent transactions`, { cause: error });
          await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * Math.random()));
        }
        pending = retry;
      }
    }
  }
  return outcomes as MoveOutcome[];
}

export async function moveIdent(client: DynamoDBDocumentClient, table: string, oldKey: string, upgraded: Row): Promise<MoveOutcome> {
  const [outcome] = await moveIdents(client, table, [{ oldKey, upgraded }]);
  return outcome as MoveOutcome;
}

/** The row under a key, read consistently (a key move must see the latest state). */
export async function readIdent(client: DynamoDBDocumentClient, table: string, key: string): Promise<Row | undefined> {
  const result = await client.send(new GetCommand({ TableName: table, Key: { uuid: key }, ConsistentRead: true }));
  return result.Item;
}
