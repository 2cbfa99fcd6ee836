import { definition } from "../../app/index.ts";
import { Application } from "../../lib/core/application.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { seededBlog } from "../warm/blog.ts";

/** Where the parent put the seeded DynamoDB Local blog: its endpoint and table prefix. */
export const BLOG_ENDPOINT = "EXECUTOR_BENCH_ENDPOINT";
export const BLOG_PREFIX = "EXECUTOR_BENCH_PREFIX";

/**
 * The blog a child serves: the warm section's seed on the memory store, or the tables the parent
 * created and seeded in DynamoDB Local (bench/warm/dynamodb.ts dynamoBlog).
 */
export async function blogFor(store: string): Promise<Application> {
  if (store === "memory") return seededBlog();
  const endpoint = process.env[BLOG_ENDPOINT];
  const prefix = process.env[BLOG_PREFIX];
  if (!endpoint || !prefix) throw new Error(`${BLOG_ENDPOINT} and ${BLOG_PREFIX} name the seeded DynamoDB Local blog`);
  const documents = createDocumentClient(endpoint);
  return new Application(definition).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
}
