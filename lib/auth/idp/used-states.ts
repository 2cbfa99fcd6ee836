import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { documentClient } from "../../store/dynamodb-client.ts";
import { tablePrefix } from "../../store/table-prefix.ts";

/**
 * A state cookie is single-use: clearing it in the browser is not enough, since a copy (or the
 * authorization URL kept in history, which yields a fresh code for the same state) could be
 * replayed. The callback claims the state's digest with a conditional write; a second claim fails.
 * Rows expire with the cookie (DynamoDB TTL on `expiresAt`).
 */
export const USED_STATES_SUFFIX = "auth-idp-states";
export const USED_STATES_TTL = "expiresAt";

export interface UsedStates {
  /** True the first time an id is claimed, false ever after (until it expires). */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

export function usedStatesTable(prefix: string): CreateTableCommandInput {
  return {
    TableName: `${prefix}${USED_STATES_SUFFIX}`,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
  };
}

export class DynamoUsedStates implements UsedStates {
  constructor(
    private readonly tableName: string,
    private readonly client: DynamoDBDocumentClient = documentClient(),
  ) {}

  async claim(id: string, expiresAt: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { id, [USED_STATES_TTL]: expiresAt },
          // A row past its TTL may linger until DynamoDB deletes it: it no longer counts.
          ConditionExpression: "attribute_not_exists(id) OR #exp < :now",
          ExpressionAttributeNames: { "#exp": USED_STATES_TTL },
          ExpressionAttributeValues: { ":now": Math.floor(Date.now() / 1000) },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === "ConditionalCheckFailedException") return false;
      throw error;
    }
  }
}

/** For the memory and file stores (tools, tests): one process remembers. */
export class MemoryUsedStates implements UsedStates {
  private readonly claimed = new Map<string, number>();

  async claim(id: string, expiresAt: number): Promise<boolean> {
    const now = Math.floor(Date.now() / 1000);
    for (const [key, exp] of this.claimed) if (exp < now) this.claimed.delete(key);
    if (this.claimed.has(id)) return false;
    this.claimed.set(id, expiresAt);
    return true;
  }
}

export function usedStatesFromEnv(env: NodeJS.ProcessEnv = process.env): UsedStates {
  const store = env.STORE ?? "dynamodb";
  if (store !== "dynamodb") return new MemoryUsedStates();
  return new DynamoUsedStates(`${tablePrefix("the Idp's used states", undefined, env)}${USED_STATES_SUFFIX}`);
}
