import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, inject } from "vitest";
import { describeModel } from "../../lib/core/model-info.ts";
import { Model } from "../../lib/core/model.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { COMPOSITE, repositoryContract, SINGLE } from "./contract.ts";

const endpoint = inject("dynamodbEndpoint");
const documents = createDocumentClient(endpoint);
const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
afterAll(() => {
  documents.destroy();
  admin.destroy();
});

/** Contract tables are made from model-like shapes through the same definition code as the app's. */
function shapeModel(name: string, keys: string[], numeric: string[]): typeof Model {
  const properties = Object.fromEntries([...keys, "group", "rank", "name", "owner"].map((f) => [f, { type: numeric.includes(f) ? "number" : "string" }]));
  return class extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = keys;
    static override readonly schema = { type: "object" as const, properties };
    static { Object.defineProperty(this, "name", { value: name }); }
  };
}

const prefix = `contract-${process.pid}-`;
const tables = new Map<string, { name: string }>();
let ready: Promise<void> | undefined;

async function createTables(): Promise<void> {
  const single = describeModel(shapeModel("Single", ["id"], ["rank"]));
  const composite = describeModel(shapeModel("Composite", ["owner", "name"], []));
  const defs = [
    { ...tableDefinition({ ...single, table: SINGLE }, prefix) },
    { ...tableDefinition({ ...composite, table: COMPOSITE }, prefix) },
  ];
  await ensureTables(admin, defs);
  tables.set("single", { name: `${prefix}Single` });
  tables.set("composite", { name: `${prefix}Composite` });
}

repositoryContract("DynamoDB", async (table) => {
  ready ??= createTables();
  await ready;
  const name = table === SINGLE ? `${prefix}Single` : `${prefix}Composite`;
  return new DynamoRepository(documents, name, table);
});
