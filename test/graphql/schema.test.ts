import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildSchema, isInputObjectType, printSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { app } from "../../app/index.ts";
import { buildGraphQLSchema } from "../../lib/graphql/schema.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";

const committed = await readFile(fileURLToPath(new URL("../../schema-cache/schema.graphql", import.meta.url)), "utf8");

describe("generated schema of the blog", () => {
  it("is the committed schema-cache/schema.graphql (else: npm run build)", () => {
    expect(`${printSchema(buildGraphQLSchema(app))}\n`).toBe(committed);
  });

  it("holds every type name of the spec's listing and the exact PostInput fields", () => {
    const schema = buildSchema(committed);
    for (const name of ["Query", "Mutation", "Subscription", "Post", "User", "Comment", "Tag", "PostTag", "UserFollow", "PostResults", "UserResults", "DeleteResult"]) {
      expect(schema.getType(name), name).toBeDefined();
    }
    const input = schema.getType("PostInput");
    expect(isInputObjectType(input) && Object.keys(input.getFields())).toEqual(["slug", "title", "content", "status", "viewCount"]);
  });

  it("names operations by rule: <operation><Model>, <service><Operation>; GET operations are queries", () => {
    const schema = buildGraphQLSchema(app);
    expect(Object.keys(schema.getMutationType()?.getFields() ?? {})).toEqual(expect.arrayContaining(["publishPost", "publisherPublish", "publisherPublishPost", "testbeanTestOperation"]));
    expect(Object.keys(schema.getQueryType()?.getFields() ?? {})).toEqual(expect.arrayContaining(["versionVersion", "me", "Posts", "PostTags", "UserFollow"]));
    const publish = schema.getMutationType()?.getFields().publishPost;
    expect(publish?.args.map((a) => a.name)).toEqual(["slug", "destination"]);
  });

  it("drops me when exposeMe is false and Subscription when subscriptions are off", () => {
    const schema = buildGraphQLSchema(app, { ...graphqlOptions(app), exposeMe: false, subscriptions: false });
    expect(schema.getQueryType()?.getFields().me).toBeUndefined();
    expect(schema.getSubscriptionType()).toBeFalsy();
  });
});
