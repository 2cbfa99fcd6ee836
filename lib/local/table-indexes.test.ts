import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { localDynamoDbClient } from "./local-aws.ts";
import { ensureIndexes, removeIndexes } from "./table-indexes.ts";
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
    const grown = definition(name, ["owner", "board", "tag"]);
    expect(await ensureIndexes(client, [grown])).toEqual([`${name}.by_board`, `${name}.by_tag`]);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(["by_board", "by_owner", "by_tag"]);
    expect(await ensureIndexes(client, [grown])).toEqual([]);
  });
});

describe("removeIndexes (npm start over an older --persist database)", () => {
  it("deletes the indexes no longer declared and those whose key changed, one at a time; ensureIndexes recreates the changed one", async () => {
    const name = `indexes-drop-${randomUUID()}`;
    await ensureTables(client, [definition(name, ["owner", "board", "tag"])]);
    // The next version: by_board gone, by_tag now keyed on another attribute, by_owner as it was.
    const next = definition(name, ["owner", "tag"]);
    const retagged = next.GlobalSecondaryIndexes?.find((i) => i.IndexName === "by_tag");
    if (retagged) retagged.KeySchema = [{ AttributeName: "label", KeyType: "HASH" }];
    next.AttributeDefinitions = [...(next.AttributeDefinitions ?? []), { AttributeName: "label", AttributeType: "S" }];
    expect((await removeIndexes(client, [next])).sort()).toEqual([`${name}.by_board`, `${name}.by_tag`]);
    const names = async () =>
      ((await client.send(new DescribeTableCommand({ TableName: name }))).Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort();
    expect(await names()).toEqual(["by_owner"]);
    expect(await ensureIndexes(client, [next])).toEqual([`${name}.by_tag`]);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === "by_tag")?.KeySchema).toEqual([{ AttributeName: "label", KeyType: "HASH" }]);
    // Once the table is as declared, a start removes nothing.
    expect(await removeIndexes(client, [next])).toEqual([]);
  });
});

describe("ensureIndexes against a table whose new index takes time (fault injection)", () => {
  it("sends the next index's UpdateTable only once the previous index is ACTIVE", async () => {
    const name = `indexes-slow-${randomUUID()}`;
    const log: string[] = [];
    let creating = 0;
    const indexes: { IndexName: string; IndexStatus: string }[] = [{ IndexName: "by_owner", IndexStatus: "ACTIVE" }];
    const slow = {
      send: async (command: { constructor: { name: string }; input: { GlobalSecondaryIndexUpdates?: { Create?: { IndexName?: string } }[] } }) => {
        if (command.constructor.name === "UpdateTableCommand") {
          const created = command.input.GlobalSecondaryIndexUpdates?.[0]?.Create?.IndexName ?? "";
          // DynamoDB's own refusal of a second index while one is being created.
          if (indexes.some((i) => i.IndexStatus !== "ACTIVE"))
            throw Object.assign(new Error("Only 1 online index can be created"), { name: "LimitExceededException" });
          indexes.push({ IndexName: created, IndexStatus: "CREATING" });
          creating = 3;
          log.push(`create ${created}`);
          return {};
        }
        // Each describe after a create sees it CREATING a few times, then ACTIVE; the table stays ACTIVE.
        if (creating > 0 && --creating === 0) for (const i of indexes) i.IndexStatus = "ACTIVE";
        log.push("describe");
        return { Table: { TableName: name, TableStatus: "ACTIVE", GlobalSecondaryIndexes: indexes.map((i) => ({ ...i })) } };
      },
    } as unknown as Parameters<typeof ensureIndexes>[0];
    expect(await ensureIndexes(slow, [definition(name, ["owner", "board", "tag"])])).toEqual([`${name}.by_board`, `${name}.by_tag`]);
    expect(log.filter((l) => l.startsWith("create"))).toEqual(["create by_board", "create by_tag"]);
    expect(log.indexOf("create by_tag") - log.indexOf("create by_board")).toBeGreaterThan(3);
  });
});
