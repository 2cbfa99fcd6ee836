import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { upgradeUser, type Row } from "./field-map.ts";

/**
 * Moves a v3 user's `__password` into `password.__hash` with one conditional UpdateItem: it
 * applies only while the row still holds the hash that was read, so a concurrent password change
 * is never overwritten with the old hash. The version is bumped as every write does.
 */
export async function migrateUser(client: DynamoDBDocumentClient, table: string, keyField: string, row: Row, now: string): Promise<"migrated" | "changed"> {
  const change = upgradeUser(row);
  if (!change) return "changed";
  const names: Record<string, string> = { "#old": "__password", "#ver": "__version", "#updated": "updatedAt" };
  const values: Record<string, unknown> = { ":hash": row.__password, ":zero": 0, ":one": 1, ":now": now };
  const sets = ["#ver = if_not_exists(#ver, :zero) + :one", "#updated = :now"];
  let condition = "#old = :hash";
  if (change.set.password !== undefined) {
    names["#pw"] = "password";
    values[":pw"] = change.set.password;
    sets.push("#pw = :pw");
    condition += " AND attribute_not_exists(#pw.#hash)";
    names["#hash"] = "__hash";
  }
  try {
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: { [keyField]: row[keyField] },
        UpdateExpression: `SET ${sets.join(", ")} REMOVE #old`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return "migrated";
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return "changed";
    throw error;
  }
}
