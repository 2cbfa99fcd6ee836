import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { enableTestUser, graphqlBlog } from "./support.ts";

let restore: () => void;
beforeAll(() => {
  restore = enableTestUser();
});
afterAll(() => restore());

const g = graphqlBlog();

describe("GraphQL over HTTP", () => {
  it("runs queries over GET and refuses mutations there with 405", async () => {
    const query = await g.get(`{ versionVersion }`);
    expect(query).toMatchObject({ statusCode: 200, body: { data: { versionVersion: g.app.version } } });
    const mutation = await g.get(`mutation { deletePost(uuid: "x") { success } }`, { user: ALICE });
    expect(mutation.statusCode).toBe(405);
    expect(mutation.headers.allow).toBe("POST");
    expect(mutation.body.errors?.[0]?.extensions.code).toBe("METHOD_NOT_ALLOWED");
  });

  it("answers application/graphql-response+json when accepted, with 4xx for request errors", async () => {
    const modern = await g.post(`{ nope }`, { accept: "application/graphql-response+json, application/json;q=0.9" });
    expect(modern.statusCode).toBe(400);
    expect(modern.headers["content-type"]).toMatch(/^application\/graphql-response\+json/);
    expect(modern.body.errors?.[0]?.extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    const legacy = await g.post(`{ nope }`);
    expect(legacy.statusCode).toBe(200);
    expect(legacy.headers["content-type"]).toMatch(/^application\/json/);
    const syntax = await g.post(`{ nope `, { accept: "application/graphql-response+json" });
    expect(syntax.statusCode).toBe(400);
    expect(syntax.body.errors?.[0]?.extensions.code).toBe("GRAPHQL_PARSE_FAILED");
    const partial = await g.post(`{ versionVersion Posts(query: "=") { results { slug } } }`, { accept: "application/graphql-response+json" });
    expect(partial.statusCode).toBe(200);
    expect(partial.body.data).toEqual({ versionVersion: g.app.version, Posts: null });
    const refused = await g.post(`{ versionVersion }`, { accept: "text/csv" });
    expect(refused.statusCode).toBe(406);
  });

  it("refuses other methods, non-JSON bodies, a missing query and subscriptions", async () => {
    const put = await call(g.handler, httpEvent("PUT", "/graphql", { body: { query: "{ versionVersion }" } }));
    expect(put).toMatchObject({ statusCode: 405, headers: { allow: "GET, POST" } });
    const text = await call(g.handler, httpEvent("POST", "/graphql", { rawBody: "{ versionVersion }", headers: { "content-type": "text/plain" } }));
    expect(text).toMatchObject({ statusCode: 415, body: { errors: [{ extensions: { code: "UNSUPPORTED_MEDIA_TYPE" } }] } });
    const missing = await call(g.handler, httpEvent("POST", "/graphql", { body: { variables: {} } }));
    expect(missing).toMatchObject({ statusCode: 400, body: { errors: [{ extensions: { code: "BAD_REQUEST" } }] } });
    const subscription = await g.post(`subscription { Posts { type } }`);
    expect(subscription.body.errors?.[0]?.extensions.code).toBe("OPERATION_NOT_SUPPORTED");
    const ambiguous = await g.post(`query A { versionVersion } query B { me { uuid } }`);
    expect(ambiguous.body.errors?.[0]?.extensions.code).toBe("BAD_REQUEST");
    expect((await g.post(`query A { versionVersion } query B { me { uuid } }`, { operationName: "B" })).body).toEqual({ data: { me: null } });
  });

  it("answers introspection like any GraphQL server", async () => {
    const answer = await g.data(`{ __schema { queryType { name } mutationType { name } subscriptionType { name } types { name kind } } }`);
    const schema = answer.__schema as {
      queryType: { name: string };
      mutationType: { name: string };
      subscriptionType: { name: string };
      types: { name: string; kind: string }[];
    };
    expect([schema.queryType.name, schema.mutationType.name, schema.subscriptionType.name]).toEqual(["Query", "Mutation", "Subscription"]);
    const names = schema.types.map((t) => t.name);
    for (const name of [
      "Post",
      "User",
      "Comment",
      "Tag",
      "PostTag",
      "UserFollow",
      "PostResults",
      "UserResults",
      "DeleteResult",
      "PostInput",
      "Long",
      "Date",
      "Any",
    ])
      expect(names).toContain(name);
    expect(schema.types.find((t) => t.name === "PostInput")?.kind).toBe("INPUT_OBJECT");
  });

  it("has no subscription type when subscriptions are off, and no introspection when that is off", async () => {
    const quiet = graphqlBlog({ subscriptions: false, introspection: false });
    const refused = await quiet.post(`{ __schema { subscriptionType { name } } }`);
    expect(refused.body.errors?.[0]?.extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(quiet.handler.endpoint.schema.getSubscriptionType() ?? null).toBeNull();
    const open = graphqlBlog({ subscriptions: false });
    expect(await open.data(`{ __schema { subscriptionType { name } } }`)).toEqual({ __schema: { subscriptionType: null } });
  });

  it("redirects browsers to GraphiQL when exposed", async () => {
    const browser = "text/html,application/xhtml+xml,*/*;q=0.8";
    const page = await call(g.handler, httpEvent("GET", "/graphql", { headers: { accept: browser } }));
    expect(page).toMatchObject({ statusCode: 302, headers: { location: "/graphiql" } });
    const hidden = graphqlBlog({ exposeGraphiQL: false });
    const none = await call(hidden.handler, httpEvent("GET", "/graphql", { headers: { accept: browser } }));
    expect(none.statusCode).toBe(400);
  });

  it("hides internals: an unexpected failure is INTERNAL_SERVER_ERROR with the request id", async () => {
    const broken = graphqlBlog(
      {},
      (await import("../support/blog.ts")).blog(() => {
        throw new Error("secret database detail");
      }),
    );
    const answer = await broken.post(`{ versionVersion Post(slug: "x") { slug } }`);
    expect(answer.body.data).toEqual({ versionVersion: broken.app.version, Post: null });
    expect(answer.body.errors?.[0]).toMatchObject({
      message: "Internal error",
      path: ["Post"],
      extensions: { code: "INTERNAL_SERVER_ERROR", requestId: expect.any(String) },
    });
    expect(JSON.stringify(answer.body)).not.toContain("secret");
  });

  it("caches parsed and validated documents by query text", async () => {
    const fresh = graphqlBlog({ documentCacheSize: 2 });
    for (const q of ["{ a: versionVersion }", "{ b: versionVersion }", "{ a: versionVersion }", "{ c: versionVersion }"]) await fresh.post(q);
    expect(fresh.handler.endpoint.documents.cached).toBe(2);
    const doc = fresh.handler.endpoint.documents.parse("{ c: versionVersion }");
    expect(fresh.handler.endpoint.documents.parse("{ c: versionVersion }")).toBe(doc);
  });
});
