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

/**
 * Moves an ident from its v3 key to its v4 key in ONE TransactWriteItems: the new row is put only
 * if its key is free and the old one is deleted only if it still exists, both or neither, so a
 * crash at any point leaves exactly one copy. Rerunning after a crash finds either the v3 row
 * (nothing happened) or the v4 row (all happened).
 */
export async function moveIdent(client: DynamoDBDocumentClient, table: string, oldKey: string, upgraded: Row): Promise<MoveOutcome> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await tryMove(client, table, oldKey, upgraded);
    // Two transactions on the same items at once (a login racing the command, or two case
    // variants in one page): DynamoDB cancels one; by the next attempt the other has committed.
    if (outcome !== "busy") return outcome;
    if (attempt === MOVE_ATTEMPTS) throw new Error(`the move of ident '${oldKey}' kept colliding with concurrent transactions`);
    await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * Math.random()));
  }
}

const MOVE_ATTEMPTS = 6;

async function tryMove(client: DynamoDBDocumentClient, table: string, oldKey: string, upgraded: Row): Promise<MoveOutcome | "busy"> {
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table,
              Item: upgraded,
              ConditionExpression: "attribute_not_exists(#k)",
              ExpressionAttributeNames: { "#k": "uuid" },
            },
          },
          {
            Delete: {
              TableName: table,
              Key: { uuid: oldKey },
              ConditionExpression: "attribute_exists(#k)",
              ExpressionAttributeNames: { "#k": "uuid" },
            },
          },
        ],
      }),
    );
    return "moved";
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const [put, del] = error.CancellationReasons ?? [];
    if (put?.Code === "TransactionConflict" || del?.Code === "TransactionConflict") return "busy";
    if (del?.Code === "ConditionalCheckFailed") return "gone";
    if (put?.Code === "ConditionalCheckFailed") {
      // The target exists and the source too: either a case variant holds it, or this row was
      // moved and a v3 writer recreated the old key meanwhile. Both leave the row untouched.
      return "conflict";
    }
    throw error;
  }
}

/** The row under a key, read consistently (a key move must see the latest state). */
export async function readIdent(client: DynamoDBDocumentClient, table: string, key: string): Promise<Row | undefined> {
  const result = await client.send(new GetCommand({ TableName: table, Key: { uuid: key }, ConsistentRead: true }));
  return result.Item;
}
