import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { Application } from "../../lib/core/application.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinitions, tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { definition } from "../../app/index.ts";
import { httpEvent, lambdaContext } from "../../test/support/http-events.ts";
import { seedBlog, WRITERS } from "../warm/blog.ts";
import { LIST, REST_QUERY } from "../warm/queries.ts";
import { countByCommand, recordCalls, type Call } from "./recorder.ts";

export interface Accounted {
  operation: string;
  status: number;
  calls: Call[];
  counts: Record<string, number>;
  capacity: number;
}

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;

/**
 * get, query by foreign key, list with relations, create and patch, each through its real face
 * (REST or GraphQL handler) over DynamoDB at `endpoint`, with the calls each one sent.
 * Needs the test-user hook (IS_OFFLINE and ALLOW_TEST_USER) for the writes.
 */
export async function accountOperations(endpoint: string, prefix: string): Promise<Accounted[]> {
  const documents = createDocumentClient(endpoint);
  const recorder = recordCalls(documents);
  const app = new Application(definition).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
  const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  try {
    await ensureTables(admin, tableDefinitions(app, prefix));
    await seedBlog(app);
    const rest = restHandler(app) as unknown as Handler;
    const graphql = graphqlHandler(app) as unknown as Handler;
    const writer = WRITERS[1] ?? "";
    const user = { "x-test-user": writer };
    const slug = `bench-${Date.now()}`;
    const operations: [string, Handler, ReturnType<typeof httpEvent>][] = [
      ["get (REST GET /posts/{slug})", rest, httpEvent("GET", "/posts/p7", { routeKey: "GET /posts/{slug}" })],
      ["query by foreign key (REST, author = ...)", rest, httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body: REST_QUERY(writer) })],
      ["list with relations (GraphQL 50 posts + author + tags)", graphql, httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body: { query: LIST } })],
      ["create (REST POST /posts)", rest, httpEvent("POST", "/posts", { routeKey: "POST /posts", headers: user, body: { slug, title: "New", content: "c", status: "published" } })],
      ["patch (REST PATCH /posts/{slug})", rest, httpEvent("PATCH", `/posts/${slug}`, { routeKey: "PATCH /posts/{slug}", headers: user, body: { title: "Patched" } })],
    ];
    const out: Accounted[] = [];
    for (const [operation, handler, event] of operations) {
      recorder.reset();
      const answer = await handler(event, lambdaContext());
      const calls = [...recorder.calls];
      out.push({ operation, status: answer.statusCode, calls, counts: countByCommand(calls), capacity: calls.reduce((sum, c) => sum + c.capacity, 0) });
    }
    return out;
  } finally {
    admin.destroy();
    documents.destroy();
  }
}
