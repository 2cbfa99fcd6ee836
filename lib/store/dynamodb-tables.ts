import type { AttributeDefinition, CreateTableCommandInput, ScalarAttributeType } from "@aws-sdk/client-dynamodb";
import type { ModelInfo } from "../core/model-info.ts";

export interface TableSource {
  models(): ModelInfo[];
}

export function tableName(prefix: string, model: string): string {
  return `${prefix}${model}`;
}

function attributeType(info: ModelInfo, field: string): ScalarAttributeType {
  const schema = info.outputSchema.properties[field];
  return schema?.type === "number" || schema?.type === "integer" ? "N" : "S";
}

/**
 * The table of each model: its key as partition (and sort) key, a global secondary index per
 * foreign key and per declared order, on-demand billing. The same definitions create the local
 * tables and the CloudFormation resources, so the two cannot drift. The stream is said the
 * CreateTable way (`StreamEnabled`), which DynamoDB Local needs; the CloudFormation rendering
 * (cloudformation.ts) leaves that flag out, as `AWS::DynamoDB::Table` has no such property.
 */
export function tableDefinition(info: ModelInfo, prefix: string): CreateTableCommandInput {
  const { key, indexes } = info.table;
  const attributes = new Map<string, AttributeDefinition>();
  const define = (field: string): void => {
    attributes.set(field, { AttributeName: field, AttributeType: attributeType(info, field) });
  };
  const keySchema = (shape: { hash: string; range?: string }) => {
    define(shape.hash);
    if (shape.range) define(shape.range);
    return shape.range
      ? [
          { AttributeName: shape.hash, KeyType: "HASH" as const },
          { AttributeName: shape.range, KeyType: "RANGE" as const },
        ]
      : [{ AttributeName: shape.hash, KeyType: "HASH" as const }];
  };
  const definition: CreateTableCommandInput = {
    TableName: tableName(prefix, info.name),
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: keySchema(key),
    AttributeDefinitions: [],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  };
  if (indexes.length > 0) {
    definition.GlobalSecondaryIndexes = indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: keySchema(index),
      Projection: { ProjectionType: "ALL" },
    }));
  }
  definition.AttributeDefinitions = [...attributes.values()];
  return definition;
}

export function tableDefinitions(app: TableSource, prefix: string): CreateTableCommandInput[] {
  return app.models().map((info) => tableDefinition(info, prefix));
}
