import { randomUUID } from "node:crypto";
import type { GraphQLSchema } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { NotFoundError } from "../../lib/core/errors.ts";
import { graphqlContext } from "../../lib/graphql/context.ts";
import { buildGraphQLSchema } from "../../lib/graphql/schema.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import type { Key } from "../../lib/store/repository.ts";
import { definition } from "../../app/index.ts";
import { as, model, post } from "../support/blog.ts";
import { createModelTables } from "../support/model-tables.ts";
import { runBoth } from "./differential.ts";
import { inProcess } from "../support/parts.ts";

/**
 * Our executor against graphql-js's `execute` on the sample schema and its real resolvers, over
 * the same records in DynamoDB Local: whole results compared as JSON, and the DynamoDB calls each
 * made (batching kept), for anonymous callers, an author and another user.
 */
const prefix = `cexec-${randomUUID().slice(0, 8)}-`;
const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
let commands: string[] = [];
documents.middlewareStack.add((next, context) => (args) => {
  commands.push(context.commandName ?? "unknown");
  return next(args);
}, { step: "initialize", name: "countCommands" });

const app = new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
const users = Array.from({ length: 4 }, (_, i) => `user-${i}-${randomUUID()}`);
const [writer, other] = users as [string, string];
const User = model(app, "User");
const Post = model(app, "Post");
const Tag = model(app, "Tag");
const PostTag = model(app, "PostTag");
const Comment = model(app, "Comment");
const TAGS = ["red", "green", "blue", "gold"];
let schema: GraphQLSchema;

beforeAll(async () => {
  await createModelTables(app, prefix);
  schema = buildGraphQLSchema(app);
  await Promise.all(users.map((u, i) => app.domain.create(as(u), User, { username: `writer${i}`, name: `W${i}`, bio: i === 1 ? "" : `bio ${i}` }, { email: `w${i}@example.com` })));
  await Promise.all(TAGS.map((slug) => app.domain.create(as(writer), Tag, { slug, name: slug.toUpperCase(), description: "", color: "#000000" })));
  // Published posts by everyone; drafts and archived posts are their author's alone.
  await Promise.all(Array.from({ length: 24 }, (_, i) => {
    const status = i % 6 === 4 ? "draft" : i % 6 === 5 ? "archived" : "published";
    return app.domain.create(as(users[i % 4]), Post, post(`p${i}`, status, { viewCount: i * 3 }));
  }));
  await Promise.all(Array.from({ length: 24 }, (_, i) => TAGS.slice(0, i % 4).map((tag) => app.domain.create(as(users[i % 4]), PostTag, { post: `p${i}`, tag }))).flat());
  for (const i of [0, 1, 4, 5, 8]) {
    await Promise.all(Array.from({ length: i % 3 + 1 }, (_, n) => {
      const author = users[(i + n) % 4] as string;
      return app.domain.create(as(author), Comment, { content: `c${n} on p${i}`, post: `p${i}`, author, isEdited: n % 2 === 1 });
    }).map((p) => p.catch(() => undefined)));
  }
}, 120_000);

afterAll(() => {
  documents.destroy();
});

interface Case {
  name: string;
  source: string;
  variables?: Record<string, unknown>;
  user?: string;
  before?: () => Promise<void>;
}

async function same({ source, variables, user, before }: Case): Promise<void> {
  const calls: string[][] = [];
  const runs = await runBoth(schema, source, {
    ...(variables ? { variables } : {}),
    // What resetting the data calls is no part of either run's calls.
    ...(before ? { before: async () => { commands = []; await before(); } } : {}),
    context: () => {
      commands = [];
      calls.push(commands);
      return graphqlContext(app, new Context(user ? { userId: user } : {}));
    },
  });
  expect(runs.compiled.planned, "ran on a plan").toBe(true);
  expect(sealed(runs.compiled.json)).toBe(sealed(runs.graphqlJs.json));
  // As many calls of each kind; their order follows DynamoDB Local's answers to calls made together.
  expect([...(calls[1] ?? [])].sort(), "DynamoDB calls").toEqual([...(calls[0] ?? [])].sort());
}

/** A continuation token is sealed with a fresh nonce each time: present in both or in neither is what can match. */
function sealed(json: string): string {
  return json.replace(/"continuationToken":"[^"]+"/g, '"continuationToken":"(sealed)"');
}

const POST_FIELDS = "slug title content status viewCount createdAt updatedAt";

const queries: Case[] = [
  { name: "the bench's 50 posts with author and tags", source: `{ Posts(limit: 50) { results { slug title author { username } tags { name } } } }` },
  { name: "a single record", source: `{ Post(slug: "p7") { slug title status } }` },
  { name: "every scalar of a post, Long and Date included", source: `{ Posts(limit: 30) { results { ${POST_FIELDS} } continuationToken } }` },
  {
    name: "aliases, fragments, inline fragments, a draft and a missing record",
    source: `query { first: Post(slug: "p1") { ...P } draft: Post(slug: "p4") { ...P } missing: Post(slug: "nope") { slug }
      again: Post(slug: "p1") { s: slug ... on Post { t: title author { ... on User { username } ...U } } } }
      fragment P on Post { slug title status viewCount author { ...U } tags(limit: 2) { slug name createdBy { ...U } } }
      fragment U on User { uuid username name email }`,
  },
  {
    name: "comments of many posts, their authors and posts (a contains relation in a list)",
    source: `{ Posts(limit: 30) { results { slug comments(limit: 2) { results { content isEdited author { username } post { slug status } } continuationToken } } } }`,
  },
  { name: "comments listed with the posts they belong to, drafts among them", source: `{ Comments(limit: 50) { results { content post { slug title author { name } } author { bio } } } }` },
  { name: "a relation argument out of range: an error per post, at depth", source: `{ Posts(limit: 8) { results { slug tags(limit: 0) { name } more: tags(limit: 1000) { name } } } }` },
  { name: "a filter that does not parse fails its root field, the others answer", source: `{ Posts(query: "nonsense ((") { results { slug } } Tags(limit: 2) { results { slug } } versionVersion }` },
  { name: "an offset that is not a token", source: `{ Posts(limit: 2, offset: "garbage") { results { slug } } }` },
  { name: "__typename everywhere", source: `{ __typename Posts(limit: 3) { __typename results { __typename slug author { __typename uuid } tags { __typename } } } }` },
  { name: "me, signed in", source: `{ me { uuid username email } }`, user: writer },
  { name: "me, anonymous", source: `{ me { uuid username } }` },
  { name: "the query language and pages", source: `{ Posts(query: "status = 'published' ORDER BY createdAt DESC", limit: 5) { results { slug status author { username } } continuationToken } }` },
];

const withVariables: Case[] = [
  { name: "skip and include from variables (tags in, author out)", source: SKIPPING(), variables: { withTags: true, noAuthor: true } },
  { name: "skip and include from variables (defaults)", source: SKIPPING(), variables: { withTags: false } },
  { name: "skip and include from variables (all in)", source: SKIPPING(), variables: { withTags: true, noAuthor: false, limit: 12 } },
  { name: "a Long variable", source: `query($l: Long, $q: String) { Posts(limit: $l, query: $q) { results { slug viewCount } } }`, variables: { l: 3, q: "viewCount >= 30" } },
  { name: "a Long variable out of range: graphql-js's coercion error, no data", source: `query($l: Long) { Posts(limit: $l) { results { slug } } }`, variables: { l: 1e20 } },
  { name: "a required variable missing", source: `query($s: String!) { Post(slug: $s) { slug } }`, variables: {} },
  { name: "variables in relation arguments, shared by every item", source: `query($n: Long = 2, $q: String) { Posts(limit: 20) { results { slug tags(limit: $n) { slug } comments(query: $q, limit: $n) { results { content } } } } }`, variables: { q: "isEdited = false" } },
];

function SKIPPING(): string {
  return `query($withTags: Boolean!, $noAuthor: Boolean = false, $limit: Long = 6) {
    Posts(limit: $limit) { results { slug tags(limit: 2) @include(if: $withTags) { slug name } author @skip(if: $noAuthor) { username } ...Extra @skip(if: $noAuthor) } }
  }
  fragment Extra on Post { viewCount status }`;
}

/** Puts a post back as it was, so that each executor's mutation starts from the same record. */
function resetPost(slug: string, owner: string, status = "published"): () => Promise<void> {
  return async () => {
    await app.domain.update(as(owner), Post, { slug }, post(slug, status, { viewCount: 0 }));
  };
}

function without(info: typeof Tag, key: Key): () => Promise<void> {
  return async () => {
    try {
      await app.repository(info).delete(key);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  };
}

const mutations: Case[] = [
  {
    name: "updates in document order, one refused (not the author), a delete of nothing, an operation",
    user: writer,
    before: resetPost("p0", writer),
    source: `mutation {
      a: updatePost(uuid: "p0", Post: { slug: "p0", title: "First", content: "x", status: "published" }) { slug title author { username } }
      b: updatePost(uuid: "p1", Post: { slug: "p1", title: "Not mine", content: "x", status: "published" }) { slug }
      c: deletePost(uuid: "missing") { success }
      d: updatePost(uuid: "p0", Post: { slug: "p0", title: "Second", content: "y", status: "draft" }) { title status }
      e: publishPost(slug: "p0", destination: "twitter")
      f: updatePost(uuid: "p0", Post: { slug: "p0", title: "Third", content: "z", status: "published" }) { title }
    }`,
  },
  {
    name: "a create with its input from variables, then a read of it",
    user: writer,
    before: without(Tag, { slug: "fresh" }),
    source: `mutation($tag: TagInput!) { createTag(Tag: $tag) { slug name color createdBy { username } } again: createTag(Tag: $tag) { slug } }`,
    variables: { tag: { slug: "fresh", name: "Fresh", description: "new", color: "#ffffff" } },
  },
  {
    name: "anonymous writes are refused",
    source: `mutation { createPost(Post: { slug: "anon", title: "t", content: "c", status: "published" }) { slug } deleteTag(uuid: "red") { success } }`,
  },
  {
    name: "input that the domain's validation refuses",
    user: writer,
    source: `mutation { createPost(Post: { slug: "has space", title: "", content: "c", status: "nope" }) { slug } }`,
  },
];

describe("our executor against graphql-js's execute on the sample schema (DynamoDB Local)", () => {
  for (const c of queries) {
    for (const [who, user] of [["anonymous", c.user], ["the writer", c.user ?? writer], ["another user", c.user ?? other]] as const) {
      it(`${c.name} (${who})`, async () => same({ ...c, ...(user ? { user } : {}) }));
    }
  }
  for (const c of withVariables) it(c.name, async () => same({ ...c, user: other }));
  for (const c of mutations) it(c.name, async () => same(c));
});
