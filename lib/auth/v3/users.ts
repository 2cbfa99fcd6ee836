import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { upgradeUser, type Row } from "./field-map.ts";

/** TransactWriteItems holds at most 100 actions. */
export const USERS_PER_TRANSACTION = 100;
const ATTEMPTS = 8;

type Update = NonNullable<NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]["TransactItems"]>[number]["Update"]>;

/**
 * `__password` -> `password.__hash` as a conditional update: it applies only while the row still
 * holds the hash that was read (a concurrent password change is never overwritten with the old
 * hash) and no v4 hash exists. The version is bumped as every write does.
 */
function update(table: string, keyField: string, row: Row, now: string): Update | undefined {
  const change = upgradeUser(row);
  if (!change) return undefined;
  const names: Record<string, string> = { "#old": "__password", "#ver": "__version", "#updated": "updatedAt", "#pw": "password", "#hash": "__hash" };
  const values: Record<string, unknown> = { ":hash": row.__password, ":zero": 0, ":one": 1, ":now": now };
  const sets = ["#ver = if_not_exists(#ver, :zero) + :one", "#updated = :now"];
  let condition = "#old = :hash";
  if (change.set.password !== undefined) {
    values[":pw"] = change.set.password;
    sets.push("#pw = :pw");
    condition += " AND attribute_not_exists(#pw.#hash)";
  }
  return {
    TableName: table,
    Key: { [keyField]: row[keyField] },
    UpdateExpression: `SET ${sets.join(", ")} REMOVE #old`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Upgrades v3 users in transactions of up to 100 (all-or-nothing per transaction, so a crash
 * leaves each user either v3 or v4). A user whose row changed since it was read is reported
 * "changed" and left for the next pass.
 */
export async function migrateUsers(
  client: DynamoDBDocumentClient,
  table: string,
  keyField: string,
  rows: Row[],
  now: string,
): Promise<("migrated" | "changed")[]> {
  const outcomes: ("migrated" | "changed" | undefined)[] = new Array(rows.length).fill(undefined);
  const updates = rows.map((row) => update(table, keyField, row, now));
  updates.forEach((u, i) => {
    if (!u) outcomes[i] = "changed";
  });
  const all = updates.map((u, index) => ({ u, index })).filter((e): e is { u: Update; index: number } => e.u !== undefined);
  for (let start = 0; start < all.length; start += USERS_PER_TRANSACTION) {
    let pending = all.slice(start, start + USERS_PER_TRANSACTION);
    for (let attempt = 1; pending.length > 0; attempt++) {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: pending.map(({ u }) => ({ Update: u })) }));
        for (const { index } of pending) outcomes[index] = "migrated";
        pending = [];
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const retry = pending.filter((entry, i) => {
          if (reasons[i]?.Code !== "ConditionalCheckFailed") return true;
          outcomes[entry.index] = "changed";
          return false;
        });
        if (retry.length === pending.length) {
          if (attempt >= ATTEMPTS) throw new Error(`upgrading ${pending.length} users kept colliding with concurrent transactions`, { cause: error });
          await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * Math.random()));
        }
        pending = retry;
      }
    }
  }
  return outcomes as ("migrated" | "changed")[];
}
