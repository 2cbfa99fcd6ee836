import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { TableShape } from "../core/model-info.ts";

/**
 * The WebSocket face keeps its state in three tables of its own, next to the models' tables. A dash
 * cannot occur in a model class name, so these names never collide with `${prefix}<Model>`.
 */
export const CONNECTIONS_SUFFIX = "ws-connections";
export const SUBSCRIPTIONS_SUFFIX = "ws-subscriptions";
export const USER_CONNECTIONS_SUFFIX = "ws-user-connections";

/** Epoch seconds after which DynamoDB's TTL may delete a row; readers treat such rows as absent. */
export const TTL_ATTRIBUTE = "expiresAt";

/** CreateTable cannot enable TTL: whoever creates the tables follows up with UpdateTimeToLive for these. */
export const realtimeTtl: readonly { suffix: string; attribute: string }[] = [
  { suffix: CONNECTIONS_SUFFIX, attribute: TTL_ATTRIBUTE },
  { suffix: SUBSCRIPTIONS_SUFFIX, attribute: TTL_ATTRIBUTE },
  { suffix: USER_CONNECTIONS_SUFFIX, attribute: TTL_ATTRIBUTE },
];

export const TOPIC_INDEX = "by_topic";

export const connectionShape: TableShape = { key: { hash: "connectionId" }, indexes: [] };

/**
 * A connection's subscriptions are one partition (cleanup is a Query); `by_topic` serves fan-out:
 * an event reads the rows of its model topic and its record topic, never a Scan.
 */
export const subscriptionShape: TableShape = {
  key: { hash: "connectionId", range: "id" },
  indexes: [{ name: TOPIC_INDEX, hash: "topic", range: "connectionId" }],
};

/**
 * One row per acknowledged connection of a signed-in user, in the user's partition: the per-user
 * connection limit counts them with a strongly consistent read of that partition (an index would
 * be eventually consistent, and a burst of connection_inits would all read the same count).
 */
/** One item per signed-in user: their places (user-places.ts). */
export const userConnectionShape: TableShape = { key: { hash: "userId" }, indexes: [] };

export interface RealtimeTableNames {
  connections: string;
  subscriptions: string;
  userConnections: string;
}

export function realtimeTableNames(prefix: string): RealtimeTableNames {
  return {
    connections: `${prefix}${CONNECTIONS_SUFFIX}`,
    subscriptions: `${prefix}${SUBSCRIPTIONS_SUFFIX}`,
    userConnections: `${prefix}${USER_CONNECTIONS_SUFFIX}`,
  };
}

export function realtimeTables(prefix: string): CreateTableCommandInput[] {
  const names = realtimeTableNames(prefix);
  return [
    {
      TableName: names.connections,
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: "connectionId", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "connectionId", AttributeType: "S" }],
    },
    {
      TableName: names.subscriptions,
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: [
        { AttributeName: "connectionId", KeyType: "HASH" },
        { AttributeName: "id", KeyType: "RANGE" },
      ],
      AttributeDefinitions: [
        { AttributeName: "connectionId", AttributeType: "S" },
        { AttributeName: "id", AttributeType: "S" },
        { AttributeName: "topic", AttributeType: "S" },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: TOPIC_INDEX,
          KeySchema: [
            { AttributeName: "topic", KeyType: "HASH" },
            { AttributeName: "connectionId", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        },
      ],
    },
    {
      TableName: names.userConnections,
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: "userId", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "userId", AttributeType: "S" }],
    },
  ];
}
