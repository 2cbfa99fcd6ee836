import type { ModelInfo } from "../core/model-info.ts";
import { tableDefinition } from "./dynamodb-tables.ts";

type Json = Record<string, unknown>;

export function tableLogicalId(model: string): string {
  return `${model.replace(/[^A-Za-z0-9]/g, "")}Table`;
}

/**
 * The tables as CloudFormation resources, from the same definitions that create the local tables.
 * `prefix` may hold serverless variables (`${self:custom.tablePrefix}`), resolved at package time.
 */
export function tableResources(models: ModelInfo[], prefix: string): Json {
  const resources: Json = {};
  for (const info of models) {
    const { TableName, BillingMode, KeySchema, AttributeDefinitions, GlobalSecondaryIndexes, StreamSpecification } = tableDefinition(info, prefix);
    resources[tableLogicalId(info.name)] = {
      Type: "AWS::DynamoDB::Table",
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: {
        TableName,
        BillingMode,
        KeySchema,
        AttributeDefinitions,
        ...(GlobalSecondaryIndexes ? { GlobalSecondaryIndexes } : {}),
        StreamSpecification,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      },
    };
  }
  return resources;
}

/** Least privilege: the item and query actions the repositories use, on these tables and their indexes only. */
export function tableIamStatements(models: ModelInfo[]): Json[] {
  const arns = models.flatMap((info) => {
    const arn = { "Fn::GetAtt": [tableLogicalId(info.name), "Arn"] };
    return [arn, { "Fn::Join": ["", [arn, "/index/*"]] }];
  });
  return [
    {
      Effect: "Allow",
      Action: [
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
        "dynamodb:Query",
        "dynamodb:Scan",
        "dynamodb:ConditionCheckItem",
        // findByField's `SELECT ... WHERE key IN [...]` (the batched join-row reads).
        "dynamodb:PartiQLSelect",
      ],
      Resource: arns,
    },
  ];
}
