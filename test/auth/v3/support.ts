import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { app } from "../../fixtures/blog/index.ts";
import type { Row } from "../../../lib/auth/v3/field-map.ts";
import type { MigrationTables } from "../../../lib/auth/v3/migrate.ts";
import { migrationTables } from "../../../lib/auth/v3/setup.ts";
import { authTables } from "../../../lib/auth/tables.ts";
import { TokenSealer } from "../../../lib/auth/v3/tokens.ts";
import { tableDefinition } from "../../../lib/store/dynamodb-tables.ts";

/** The issuer the migration tests configure: their v3 Idp idents are that provider's. */
export const V3_IDP_ISSUER = "https://idp.v3.example";

export const sealer = new TokenSealer("test-secret-for-the-v3-migration");
export const seal = (tokens: Record<string, unknown>): Promise<string> => sealer.seal(tokens);

export function clients(): { raw: DynamoDBClient; client: DynamoDBDocumentClient } {
  const raw = new DynamoDBClient({ endpoint: inject("dynamodbEndpoint"), region: process.env.AWS_REGION ?? "us-east-1" });
  return { raw, client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }) };
}

/** Fresh tables for one test: every test sees only its own rows. */
export async function freshTables(raw: DynamoDBClient): Promise<{ tables: MigrationTables; drop: () => Promise<void> }> {
  const prefix = `${inject("tablePrefix")}v3-${randomUUID().slice(0, 8)}-`;
  const tables = migrationTables(app, prefix);
  const identity = app.models().find((info) => info.cls.identity);
  if (!identity) throw new Error("no identity model");
  const idents = authTables(prefix).find((d) => d.TableName === tables.idents);
  if (!idents) throw new Error("no idents table");
  const definitions = [idents, { ...tableDefinition(identity, prefix), StreamSpecification: undefined }];
  await Promise.all(definitions.map((definition) => raw.send(new CreateTableCommand(definition))));
  return {
    tables,
    drop: async () => {
      await Promise.all(definitions.map((d) => raw.send(new DeleteTableCommand({ TableName: d.TableName }))));
    },
  };
}

export async function scanAll(client: DynamoDBDocumentClient, table: string): Promise<Row[]> {
  const rows: Row[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    rows.push(...((result.Items ?? []) as Row[]));
    start = result.LastEvaluatedKey;
  } while (start);
  return rows;
}
