import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { Application } from "../../lib/core/application.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinitions, tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { definition } from "../../app/index.ts";
import { as } from "../../test/support/blog.ts";
import { httpEvent, lambdaContext } from "../../test/support/http-events.ts";
import { seedBlog, WRITERS } from "../warm/blog.ts";
import { LIST, LIST_WITH_COMMENTS, REST_QUERY } from "../warm/queries.ts";
import { byKey, checkedWrite, listing, listWithRelations, put, type Minimum } from "./minimum.ts";
import { countByCommand, recordCalls, type Call } from "./recorder.ts";
import { inProcess } from "../../test/support/parts.ts";

export interface Accounted {
  operation: string;
  status: number;
  /** The status a correct answer has: any other fails the row, whatever its call count. */
  expectedStatus: number;
  calls: Call[];
  counts: Record<string, number>;
  capacity: number;
  /** The fewest calls this operation's shape allows, and how that was derived. */
  minimum: Minimum;
  /** Why the answer is not a correct one (wrong status, GraphQL errors): the row fails. */
  problem?: string;
}

function problemOf(status: number, expected: number, body: string): string | undefined {
  if (status !== expected) return `status ${status}, expected ${expected}`;
  const errors = (JSON.parse(body || "{}") as { errors?: { message?: string }[] }).errors;
  return errors && errors.length > 0 ? `GraphQL errors: ${errors.map((e) => e.message).join("; ")}` : undefined;
}

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;

interface Operation {
  name: string;
  handler: Handler;
  event: ReturnType<typeof httpEvent>;
  expectedStatus: number;
  /** Derived after the call (from the answer and the stored records), its reads not counted. */
  minimum: (body: string) => Promise<Minimum>;
}

/** Comments on the first ten posts, two each, so that a contains relation has children to batch. */
async function seedComments(app: Application): Promise<void> {
  const Comment = app.model("Comment") as ModelInfo;
  for (let i = 0; i < 10; i++) {
    const writer = WRITERS[i % WRITERS.length];
    for (let c = 0; c < 2; c++) await app.domain.create(as(writer), Comment, { content: `comment ${c} on p${i}`, post: `p${i}`, author: writer });
  }
}

/**
 * get, query by foreign key, lists with relations, create and patch, each through its real face
 * (REST or GraphQL handler) over DynamoDB at `endpoint`, with the calls each one sent and the
 * minimum its shape allows. Needs the test-user hook (IS_OFFLINE and ALLOW_TEST_USER) for the writes.
 */
export async function accountOperations(endpoint: string, prefix: string): Promise<Accounted[]> {
  const documents = createDocumentClient(endpoint);
  const recorder = recordCalls(documents);
  const app = new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
  const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  try {
    await ensureTables(admin, tableDefinitions(app, prefix));
    await seedBlog(app);
    await seedComments(app);
    const rest = restHandler(app) as unknown as Handler;
    const graphql = graphqlHandler(app) as unknown as Handler;
    const Post = app.model("Post") as ModelInfo;
    const writer = WRITERS[1] ?? "";
    const user = { "x-test-user": writer };
    const slug = `bench-${Date.now()}`;
    // The stored posts a GraphQL page shows, and the join rows of a many-to-many, read directly.
    const storedPosts = async (body: string) => {
      const slugs = (JSON.parse(body) as { data?: { Posts?: { results?: { slug: string }[] } } }).data?.Posts?.results?.map((r) => r.slug) ?? [];
      return app.repository(Post).getMany(slugs.map((s) => ({ slug: s })));
    };
    const joinRows = (through: ModelInfo, from: string, parents: unknown[]) => app.repository(through).findByField(from, parents as string[]);
    const pagesOf = (body: string) => ((JSON.parse(body) as { results?: unknown[] }).results !== undefined ? 1 : 0);
    const operations: Operation[] = [
      {
        name: "get (REST GET /posts/{slug})",
        handler: rest,
        event: httpEvent("GET", "/posts/p7", { routeKey: "GET /posts/{slug}" }),
        expectedStatus: 200,
        minimum: async () => byKey(),
      },
      {
        name: "query by foreign key (REST, author = ...)",
        handler: rest,
        expectedStatus: 200,
        event: httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body: REST_QUERY(writer) }),
        // The filter is an equality on an indexed attribute: one Query per page returned.
        minimum: async (body) => listing(pagesOf(body), "Query"),
      },
      {
        name: "list with relations (GraphQL 50 posts + author + tags)",
        handler: graphql,
        expectedStatus: 200,
        event: httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body: { query: LIST } }),
        minimum: async (body) => listWithRelations(app, Post, LIST, await storedPosts(body), joinRows),
      },
      {
        name: "list with contains (GraphQL 50 posts + comments)",
        handler: graphql,
        expectedStatus: 200,
        event: httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body: { query: LIST_WITH_COMMENTS } }),
        minimum: async (body) => listWithRelations(app, Post, LIST_WITH_COMMENTS, await storedPosts(body), joinRows),
      },
      {
        name: "create (REST POST /posts)",
        handler: rest,
        expectedStatus: 200,
        event: httpEvent("POST", "/posts", { routeKey: "POST /posts", headers: user, body: { slug, title: "New", content: "c", status: "published" } }),
        minimum: async () => put(),
      },
      {
        name: "patch (REST PATCH /posts/{slug})",
        handler: rest,
        expectedStatus: 200,
        event: httpEvent("PATCH", `/posts/${slug}`, { routeKey: "PATCH /posts/{slug}", headers: user, body: { title: "Patched" } }),
        minimum: async () => checkedWrite(),
      },
    ];
    const out: Accounted[] = [];
    for (const op of operations) {
      recorder.reset();
      const answer = await op.handler(op.event, lambdaContext());
      const calls = [...recorder.calls];
      const minimum = await op.minimum(answer.body ?? "{}");
      const problem = problemOf(answer.statusCode, op.expectedStatus, answer.body ?? "");
      out.push({
        ...(problem ? { problem } : {}),
        operation: op.name,
        status: answer.statusCode,
        expectedStatus: op.expectedStatus,
        calls,
        counts: countByCommand(calls),
        capacity: calls.reduce((sum, c) => sum + c.capacity, 0),
        minimum,
      });
    }
    return out;
  } finally {
    admin.destroy();
    documents.destroy();
  }
}
