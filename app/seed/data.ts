import type { SeedData } from "../../lib/index.ts";

/**
 * The living blog `npm start` opens on (and `npm run seed` restores): three authors with published
 * posts and drafts, tags, comments and follows. Every record is created through the domain layer,
 * as its author, so validation, server-set fields and lifecycle events apply as for any client.
 *
 * The passwords are public demo credentials, printed by `npm start` and listed in the README:
 * seeding refuses a deployed stage unless forced by name.
 */
const ALICE = "a11ce000-0000-4000-8000-000000000001";
const BOB = "b0b00000-0000-4000-8000-000000000002";
const CAROL = "ca201000-0000-4000-8000-000000000003";

export const seed: SeedData = {
  users: [
    {
      uuid: ALICE,
      username: "alice",
      email: "alice@example.com",
      password: "alice-demo-password",
      name: "Alice Martin",
      bio: "Writes about serverless and DynamoDB.",
    },
    { uuid: BOB, username: "bob", email: "bob@example.com", password: "bob-demo-password", name: "Bob Nguyen", bio: "GraphQL at work, TypeScript at home." },
    { uuid: CAROL, username: "carol", email: "carol@example.com", password: "carol-demo-password", name: "Carol Diaz" },
  ],
  records: [
    { model: "Tag", as: ALICE, data: { slug: "serverless", name: "Serverless", description: "Lambda, API Gateway and friends", color: "#ff9900" } },
    { model: "Tag", as: ALICE, data: { slug: "dynamodb", name: "DynamoDB", description: "Keys, indexes and streams", color: "#4053d6" } },
    { model: "Tag", as: BOB, data: { slug: "graphql", name: "GraphQL", description: "Schemas, queries and subscriptions", color: "#e10098" } },
    { model: "Tag", as: BOB, data: { slug: "typescript", name: "TypeScript", description: "Types that vanish at runtime", color: "#3178c6" } },

    {
      model: "Post",
      as: ALICE,
      data: {
        slug: "hello-serverless",
        title: "Hello, serverless",
        content: "One model, three faces: REST, GraphQL and subscriptions, all derived.",
        status: "published",
        viewCount: 42,
      },
    },
    {
      model: "Post",
      as: ALICE,
      data: {
        slug: "single-table-or-not",
        title: "One table per model",
        content: "Why this blog keeps one DynamoDB table per model, with an index per foreign key.",
        status: "published",
        viewCount: 17,
      },
    },
    {
      model: "Post",
      as: ALICE,
      data: {
        slug: "streams-notes",
        title: "Notes on DynamoDB Streams",
        content: "Unfinished: how subscriptions ride the tables' streams.",
        status: "draft",
        viewCount: 0,
      },
    },
    {
      model: "Post",
      as: BOB,
      data: {
        slug: "graphql-from-json-schema",
        title: "GraphQL from JSON Schema",
        content: "The schema is generated at build time from the models' JSON Schemas.",
        status: "published",
        viewCount: 8,
      },
    },
    {
      model: "Post",
      as: BOB,
      data: {
        slug: "typing-operations",
        title: "Typing operations",
        content: "Draft: runtime schemas for operation parameters.",
        status: "draft",
        viewCount: 0,
      },
    },
    {
      model: "Post",
      as: CAROL,
      data: {
        slug: "first-post",
        title: "My first post",
        content: "Hi! Carol here, trying the query language: status = 'published'.",
        status: "published",
        viewCount: 3,
      },
    },

    { model: "PostTag", as: ALICE, data: { post: "hello-serverless", tag: "serverless" } },
    { model: "PostTag", as: ALICE, data: { post: "hello-serverless", tag: "graphql" } },
    { model: "PostTag", as: ALICE, data: { post: "single-table-or-not", tag: "dynamodb" } },
    { model: "PostTag", as: ALICE, data: { post: "streams-notes", tag: "dynamodb" } },
    { model: "PostTag", as: BOB, data: { post: "graphql-from-json-schema", tag: "graphql" } },
    { model: "PostTag", as: BOB, data: { post: "graphql-from-json-schema", tag: "typescript" } },

    // Comments are keyed by a generated uuid: the seeder recognises one already there by these fields.
    {
      model: "Comment",
      as: BOB,
      identifiedBy: ["post", "author", "content"],
      data: { post: "hello-serverless", author: BOB, content: "Great intro, the subscriptions demo sold me." },
    },
    {
      model: "Comment",
      as: CAROL,
      identifiedBy: ["post", "author", "content"],
      data: { post: "hello-serverless", author: CAROL, content: "How do I add my own model?" },
    },
    {
      model: "Comment",
      as: ALICE,
      identifiedBy: ["post", "author", "content"],
      data: { post: "graphql-from-json-schema", author: ALICE, content: "Does it handle composite keys?" },
    },

    { model: "UserFollow", as: BOB, data: { follower: BOB, following: ALICE } },
    { model: "UserFollow", as: CAROL, data: { follower: CAROL, following: ALICE } },
    { model: "UserFollow", as: ALICE, data: { follower: ALICE, following: BOB } },
  ],
};
