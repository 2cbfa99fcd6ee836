import { buildSchema, isInputObjectType, printSchema, validateSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { app } from "../fixtures/blog/index.ts";
import { graphqlCache } from "../../lib/cli/graphql-cache.ts";
import { buildGraphQLSchema, checkedGraphQLSchema } from "../../lib/graphql/schema.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { reservedNameApp } from "../support/reserved-schema.ts";

// What `npm run build` writes to schema-cache/schema.graphql for the fixture (test/schema-cache.test.ts
// checks the project's own is committed as rendered).
const committed = String((graphqlCache(app) as Record<string, string>)["schema.graphql"]);

describe("generated schema of the blog", () => {
  it("is the schema the GraphQL service builds, printed", () => {
    expect(`${printSchema(buildGraphQLSchema(app))}\n`).toBe(committed);
  });

  it("holds every type name of the spec's listing and the exact PostInput fields", () => {
    const schema = buildSchema(committed);
    for (const name of [
      "Query",
      "Mutation",
      "Subscription",
      "Post",
      "User",
      "Comment",
      "Tag",
      "PostTag",
      "UserFollow",
      "PostResults",
      "UserResults",
      "DeleteResult",
    ]) {
      expect(schema.getType(name), name).toBeDefined();
    }
    const input = schema.getType("PostInput");
    expect(isInputObjectType(input) && Object.keys(input.getFields())).toEqual(["slug", "title", "content", "status", "viewCount"]);
  });

  it("names operations by rule: <operation><Model>, <service><Operation>; GET operations are queries", () => {
    const schema = buildGraphQLSchema(app);
    expect(Object.keys(schema.getMutationType()?.getFields() ?? {})).toEqual(
      expect.arrayContaining(["publishPost", "publisherPublish", "publisherPublishPost", "testbeanTestOperation"]),
    );
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

const reserved = reservedNameApp();

describe("type-system validation at build time", () => {
  it("refuses to render schema-cache/ from a schema graphql-js finds invalid, naming the problem", () => {
    expect(() => graphqlCache(reserved)).toThrow(/GraphQL: the generated schema is invalid: .*"__touchNote" must not begin with "__"/);
    expect(() => checkedGraphQLSchema(reserved)).toThrow(/__touchNote/);
  });

  it("passes the blog's schema, which the deployed function then builds without validating again", () => {
    expect(validateSchema(checkedGraphQLSchema(app))).toEqual([]);
    const trusted = buildGraphQLSchema(app, graphqlOptions(app), { assumeValid: true });
    expect(printSchema(trusted)).toBe(printSchema(buildGraphQLSchema(app)));
  });

  it("assumeValid skips graphql-js's validation (so only a build-checked schema may use it); the default keeps it", () => {
    expect(validateSchema(buildGraphQLSchema(reserved, graphqlOptions(reserved), { assumeValid: true }))).toEqual([]);
    expect(
      validateSchema(buildGraphQLSchema(reserved))
        .map((e) => e.message)
        .join(),
    ).toMatch(/__touchNote/);
  });
});
