import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { definition } from "../fixtures/blog/index.ts";
import { as, model, post } from "../support/blog.ts";
import { enableTestUser, graphqlBlog } from "./support.ts";
import { createModelTables } from "../support/model-tables.ts";
import { inProcess } from "../support/parts.ts";

const prefix = `gql-${randomUUID().slice(0, 8)}-`;
const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
const commands: string[] = [];
documents.middlewareStack.add(
  (next, context) => (args) => {
    commands.push(context.commandName ?? "unknown");
    return next(args);
  },
  { step: "initialize", name: "countCommands" },
);

const app = new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
const users = Array.from({ length: 5 }, (_, i) => `user-${i}-${randomUUID()}`);
let restore: () => void;

beforeAll(async () => {
  restore = enableTestUser();
  await createModelTables(app, prefix);
  const [User, Post, Tag, PostTag] = ["User", "Post", "Tag", "PostTag"].map((n) => model(app, n)) as [
    ReturnType<typeof model>,
    ReturnType<typeof model>,
    ReturnType<typeof model>,
    ReturnType<typeof model>,
  ];
  await Promise.all(users.map((u, i) => app.domain.create(as(u), User, { username: `writer${i}`, name: `W${i}` }, { email: `w${i}@example.com` })));
  await Promise.all(
    ["red", "green", "blue"].map((slug) => app.domain.create(as(users[0]), Tag, { slug, name: slug.toUpperCase(), description: "", color: "#000000" })),
  );
  await Promise.all(Array.from({ length: 50 }, (_, i) => app.domain.create(as(users[i % 5]), Post, post(`p${i}`))));
  await Promise.all(
    Array.from({ length: 50 }, (_, i) => [
      app.domain.create(as(users[i % 5]), PostTag, { post: `p${i}`, tag: ["red", "green", "blue"][i % 3] }),
      app.domain.create(as(users[i % 5]), PostTag, { post: `p${i}`, tag: ["red", "green", "blue"][(i + 1) % 3] }),
    ]).flat(),
  );
}, 120_000);

afterAll(() => {
  restore();
  documents.destroy();
});

describe("batched relation loads on DynamoDB Local", () => {
  it("reads 50 posts with their authors and tags in a small constant number of calls", async () => {
    const g = graphqlBlog({}, app);
    commands.length = 0;
    const data = await g.data(`{ Posts(limit: 50) { results { slug author { username email } tags { name } } } }`, { user: users[1] });
    const results = (data.Posts as { results: { slug: string; author: { username: string; email: string | null }; tags: { name: string }[] }[] }).results;
    expect(results).toHaveLength(50);
    for (const r of results) {
      const i = Number(r.slug.slice(1));
      expect(r.author.username).toBe(`writer${i % 5}`);
      // Only writer1 (the caller) sees an email: redaction applies inside nested selections.
      expect(r.author.email).toBe(i % 5 === 1 ? "w1@example.com" : null);
      // The two join rows seeded for post i, and no other tag: a loader that mixed up keys fails.
      const colours = ["RED", "GREEN", "BLUE"];
      expect(r.tags.map((t) => t.name).sort()).toEqual([colours[i % 3], colours[(i + 1) % 3]].sort());
    }
    const counts = commands.reduce<Record<string, number>>((c, n) => ({ ...c, [n]: (c[n] ?? 0) + 1 }), {});
    console.info("DynamoDB calls for 50 posts with authors and tags:", counts);
    // One listing read, one BatchGetItem per related model, the join rows by PartiQL `IN`.
    expect(counts.GetItemCommand ?? 0).toBe(0);
    expect(counts.QueryCommand ?? 0).toBe(0);
    // Users and tags: the PostTag rows' read permission needs their posts, which are the parents in view.
    expect(counts.BatchGetItemCommand).toBe(2);
    expect(counts.ExecuteStatementCommand).toBeGreaterThanOrEqual(1);
    expect(commands.length).toBeLessThanOrEqual(6);
  });
});
