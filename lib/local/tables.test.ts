import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { localDynamoDbClient } from "./local-aws.ts";
import { ensureTables } from "./tables.ts";

const client = localDynamoDbClient(inject("dynamodbEndpoint"));
afterAll(() => client.destroy());

function definition(name: string): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "N" },
      { AttributeName: "owner", AttributeType: "S" },
    ],
    GlobalSecondaryIndexes: [{ IndexName: "byOwner", KeySchema: [{ AttributeName: "owner", KeyType: "HASH" }], Projection: { ProjectionType: "ALL" } }],
  };
}

describe("ensureTables", () => {
  it("creates missing tables, then leaves them alone", async () => {
    const names = [`tables-test-${randomUUID()}`, `tables-test-${randomUUID()}`];
    const first = await ensureTables(client, names.map(definition));
    expect(first).toEqual({ created: names, existing: [] });

    const table = await client.send(new DescribeTableCommand({ TableName: names[0] }));
    expect(table.Table?.TableStatus).toBe("ACTIVE");
    expect(table.Table?.GlobalSecondaryIndexes?.[0]?.IndexName).toBe("byOwner");

    const again = await ensureTables(client, names.map(definition));
    expect(again).toEqual({ created: [], existing: names });
  });

  it("survives two callers creating the same table at once", async () => {
    const name = `tables-race-${randomUUID()}`;
    const results = await Promise.all([ensureTables(client, [definition(name)]), ensureTables(client, [definition(name)])]);
    expect(results.flatMap((r) => r.created)).toEqual([name]);
  });

  it("does nothing for no definitions", async () => {
    expect(await ensureTables(client, [])).toEqual({ created: [], existing: [] });
  });
});
