import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { localDynamoDbClient } from "./local-aws.ts";
import { ensureIndexes } from "./table-indexes.ts";
import { ensureTables } from "./tables.ts";

const client = localDynamoDbClient(inject("dynamodbEndpoint"));
afterAll(() => client.destroy());

function definition(name: string, indexes: string[]): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, ...indexes.map((i) => ({ AttributeName: i, AttributeType: "S" as const }))],
    ...(indexes.length > 0
      ? {
          GlobalSecondaryIndexes: indexes.map((i) => ({
            IndexName: `by_${i}`,
            KeySchema: [{ AttributeName: i, KeyType: "HASH" as const }],
            Projection: { ProjectionType: "ALL" as const },
          })),
        }
      : {}),
  };
}

describe("ensureIndexes", () => {
  it("adds the indexes a live table lacks (a new relation under npm start), then leaves them alone", async () => {
    const name = `indexes-test-${randomUUID()}`;
    await ensureTables(client, [definition(name, ["owner"])]);
    const grown = definition(name, ["owner", "blog", "tag"]);
    expect(await ensureIndexes(client, [grown])).toEqual([`${name}.by_blog`, `${name}.by_tag`]);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(["by_blog", "by_owner", "by_tag"]);
    expect(await ensureIndexes(client, [grown])).toEqual([]);
  });
});
