import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";

type Json = Record<string, unknown>;

/** `Post` -> `PostTable`, `app-dev-ws-connections` (prefix removed) -> `WsConnectionsTable`. */
export function tableLogicalId(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  return `${words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join("")}Table`;
}

/**
 * Tables as CloudFormation resources, from the same CreateTable definitions that create the local
 * tables. Names may hold serverless variables (`${self:custom.tablePrefix}`), resolved at package
 * time; `ttl` names the attribute DynamoDB expires rows by, per table name.
 */
export function tableResources(tables: { logicalId: string; definition: CreateTableCommandInput; ttl?: string }[]): Json {
  const resources: Json = {};
  for (const { logicalId, definition, ttl } of tables) {
    const { TableName, BillingMode, KeySchema, AttributeDefinitions, GlobalSecondaryIndexes, StreamSpecification } = definition;
    resources[logicalId] = {
      Type: "AWS::DynamoDB::Table",
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: {
        TableName,
        BillingMode,
        KeySchema,
        AttributeDefinitions,
        ...(GlobalSecondaryIndexes ? { GlobalSecondaryIndexes } : {}),
        ...streamSpecification(StreamSpecification),
        ...(ttl ? { TimeToLiveSpecification: { AttributeName: ttl, Enabled: true } } : {}),
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      },
    };
  }
  return resources;
}

/**
 * CreateTable turns a stream on with `StreamEnabled`; `AWS::DynamoDB::Table` has no such property
 * (CloudFormation refuses the template) and streams whenever `StreamSpecification` is present.
 */
function streamSpecification(stream: CreateTableCommandInput["StreamSpecification"]): Json {
  return stream?.StreamEnabled && stream.StreamViewType ? { StreamSpecification: { StreamViewType: stream.StreamViewType } } : {};
}
