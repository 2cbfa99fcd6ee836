import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { definition } from "../../app/index.ts";
import { authTables } from "../../lib/auth/tables.ts";
import { Application } from "../../lib/core/application.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinitions, tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { seedBlog } from "./blog.ts";
import { inProcess } from "../../test/support/parts.ts";

/**
 * The warm scenarios' blog with every table (models and the auth service's sessions, refresh
 * tokens and idents) in DynamoDB Local at `endpoint`: what a request costs with a real store over
 * loopback, the same seed as the in-process one.
 */
export async function dynamoBlog(endpoint: string, prefix: string): Promise<{ app: Application; close: () => void }> {
  const documents = createDocumentClient(endpoint);
  const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  const app = new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
  await ensureTables(admin, [...tableDefinitions(app, prefix), ...authTables(prefix)]);
  await seedBlog(app);
  return {
    app,
    close: () => {
      admin.destroy();
      documents.destroy();
    },
  };
}

/**
 * The same blog (same tables, already seeded) as a stage deployed with `--param tracing=true`
 * serves it: its DynamoDB client built with TRACING=true, so every call is traced as a span
 * (lib/store/aws-tracing.ts) while the invocation is sampled.
 */
export function tracedBlog(endpoint: string, prefix: string): { app: Application; close: () => void } {
  const before = process.env.TRACING;
  process.env.TRACING = "true";
  try {
    const documents = createDocumentClient(endpoint);
    const app = new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
    return { app, close: () => documents.destroy() };
  } finally {
    if (before === undefined) delete process.env.TRACING;
    else process.env.TRACING = before;
  }
}
