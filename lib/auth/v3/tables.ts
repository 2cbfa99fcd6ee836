import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { LEGACY_USER_INDEX } from "./legacy.ts";

/**
 * Adds the sparse `by_legacy_user` index (hash `_user`, range `uuid`) to the idents table: how
 * listing a user's idents finds the v3 rows to upgrade. v4 rows never carry `_user`, so the index
 * holds v3 rows only and empties as the migration proceeds.
 */
export function withLegacyUserIndex(definition: CreateTableCommandInput): CreateTableCommandInput {
  if (definition.GlobalSecondaryIndexes?.some((index) => index.IndexName === LEGACY_USER_INDEX)) return definition;
  const attributes = definition.AttributeDefinitions ?? [];
  return {
    ...definition,
    AttributeDefinitions: [
      ...attributes,
      ...(["_user", "uuid"] as const).filter((name) => !attributes.some((a) => a.AttributeName === name)).map((name) => ({ AttributeName: name, AttributeType: "S" as const })),
    ],
    GlobalSecondaryIndexes: [
      ...(definition.GlobalSecondaryIndexes ?? []),
      {
        IndexName: LEGACY_USER_INDEX,
        KeySchema: [
          { AttributeName: "_user", KeyType: "HASH" },
          { AttributeName: "uuid", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "KEYS_ONLY" },
      },
    ],
  };
}
