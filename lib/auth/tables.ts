import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { TableShape } from "../core/model-info.ts";

/**
 * The authentication service's tables (lib/auth/CONTRACT.md), next to the models' tables. A dash
 * cannot occur in a model class name, so these names never collide with `${prefix}<Model>`.
 */
export const IDENTS = "auth-idents";
export const SESSIONS = "auth-sessions";
export const REFRESH = "auth-refresh";

export const BY_USER = "by_user";
export const BY_FAMILY = "by_family";

/** Epoch seconds after which DynamoDB's TTL may delete a row; readers treat such rows as absent. */
export const AUTH_TTL_ATTRIBUTE = "expiresAt";

export const identShape: TableShape = { key: { hash: "uuid" }, indexes: [{ name: BY_USER, hash: "user", range: "uuid" }] };
export const sessionShape: TableShape = { key: { hash: "id" }, indexes: [{ name: BY_USER, hash: "user" }] };
export const refreshShape: TableShape = { key: { hash: "id" }, indexes: [{ name: BY_FAMILY, hash: "family" }] };

/** CreateTable cannot enable TTL: whoever creates the tables follows up for these. */
export const authTtl: readonly { suffix: string; attribute: string }[] = [
  { suffix: SESSIONS, attribute: AUTH_TTL_ATTRIBUTE },
  { suffix: REFRESH, attribute: AUTH_TTL_ATTRIBUTE },
];

function table(name: string, shape: TableShape): CreateTableCommandInput {
  const attributes = new Set<string>([shape.key.hash, ...(shape.key.range ? [shape.key.range] : [])]);
  for (const index of shape.indexes) {
    attributes.add(index.hash);
    if (index.range) attributes.add(index.range);
  }
  const keySchema = (s: { hash: string; range?: string }) => [
    { AttributeName: s.hash, KeyType: "HASH" as const },
    ...(s.range ? [{ AttributeName: s.range, KeyType: "RANGE" as const }] : []),
  ];
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: keySchema(shape.key),
    AttributeDefinitions: [...attributes].map((a) => ({ AttributeName: a, AttributeType: "S" as const })),
    ...(shape.indexes.length > 0
      ? { GlobalSecondaryIndexes: shape.indexes.map((i) => ({ IndexName: i.name, KeySchema: keySchema(i), Projection: { ProjectionType: "ALL" as const } })) }
      : {}),
  };
}

export function authTables(prefix: string): CreateTableCommandInput[] {
  return [table(`${prefix}${IDENTS}`, identShape), table(`${prefix}${SESSIONS}`, sessionShape), table(`${prefix}${REFRESH}`, refreshShape)];
}
