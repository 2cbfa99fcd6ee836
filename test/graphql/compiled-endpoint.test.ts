import { getOperationAST } from "graphql";
import { beforeAll, describe, expect, it } from "vitest";
import { ALICE, as, model, post } from "../support/blog.ts";
import { graphqlBlog } from "./support.ts";

/** The endpoint's lean path runs our executor's cached plans, and graphql-js's `execute` for what they decline. */
const g = graphqlBlog({ introspection: true });
const { endpoint } = g.handler;

beforeAll(async () => {
  await g.app.domain.create(as(ALICE), model(g.app, "User"), { username: "alice", name: "Alice" }, { email: "a@example.com" });
  await g.app.domain.create(as(ALICE), model(g.app, "Tag"), { slug: "red", name: "RED", description: "", color: "#ff0000" });
  for (const slug of ["a", "b", "c"]) await g.app.domain.create(as(ALICE), model(g.app, "Post"), post(slug));
  await g.app.domain.create(as(ALICE), model(g.app, "PostTag"), { post: "b", tag: "red" });
});

const LIST = `{ Posts(limit: 50) { results { slug title author { username } tags { name } } } }`;

describe("the lean path's executor", () => {
  it("runs a POSTed query on its plan, answering what the full path (GET, graphql-js) answers", async () => {
    const before = { ...endpoint.executed };
    const lean = await g.post(LIST);
    expect(endpoint.executed).toEqual({ compiled: before.compiled + 1, graphqlJs: before.graphqlJs });
    const full = await g.get(LIST);
    expect(lean.body).toEqual(full.body);
    expect((lean.body.data?.Posts as { results: unknown[] }).results).toHaveLength(3);
  });

  it("plans an operation once and keeps the plan with the cached document", async () => {
    await g.post(LIST);
    const document = endpoint.documents.parse(LIST);
    const operation = getOperationAST(document);
    if (!operation) throw new Error("no operation");
    expect(endpoint.documents.compiled(document, operation)).toBe(endpoint.documents.compiled(document, operation));
    expect(endpoint.documents.compiled(document, operation).compilable()).toBe(true);
  });

  it("leaves introspection to graphql-js", async () => {
    const before = { ...endpoint.executed };
    const answer = await g.post(`{ __schema { queryType { name } } }`);
    expect(answer.body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    expect(endpoint.executed).toEqual({ compiled: before.compiled, graphqlJs: before.graphqlJs + 1 });
  });

  it("formats resolver errors as the full path does", async () => {
    const query = `{ Posts(limit: 2) { results { slug tags(limit: 0) { name } } } }`;
    const lean = await g.post(query);
    const full = await g.get(query);
    expect(lean.body).toEqual(full.body);
    expect(lean.body.errors?.map((e) => e.extensions.code)).toEqual(["BAD_QUERY", "BAD_QUERY"]);
  });

  it("answers variables that do not coerce with graphql-js's errors, nothing run", async () => {
    const answer = await g.post(`query($l: Long) { Posts(limit: $l) { results { slug } } }`, { variables: { l: "many" } });
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
  });
});
