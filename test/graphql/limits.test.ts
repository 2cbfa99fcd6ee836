import { describe, expect, it } from "vitest";
import { graphqlBlog } from "./support.ts";

const g = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 15, maxRootFields: 20, maxTokens: 1000, maxCost: 10_000, listFactor: 10 } });

async function refusal(query: string, variables?: Record<string, unknown>): Promise<string | undefined> {
  const answer = await g.post(query, { accept: "application/graphql-response+json", ...(variables ? { variables } : {}) });
  if (answer.body.errors) expect(answer.statusCode).toBe(400);
  return answer.body.errors?.[0]?.extensions.code;
}

describe("abuse limits, before any resolver runs", () => {
  it("refuses depth beyond 10 (QUERY_TOO_DEEP) and allows 10", async () => {
    // Comments 1, results 2, post 3, comments 4, results 5, post 6, comments 7, results 8, post 9.
    const nest = (leaf: string) =>
      `{ Comments(limit: 1) { results { post { comments(limit: 1) { results { post { comments(limit: 1) { results { post { ${leaf} } } } } } } } } } }`;
    expect(await refusal(nest("slug"))).toBeUndefined();
    expect(await refusal(nest("comments(limit: 1) { continuationToken }"))).toBe("QUERY_TOO_DEEP");
  });

  it("refuses more than 15 aliases (TOO_MANY_ALIASES)", async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: versionVersion`).join(" ")} }`;
    expect(await refusal(aliases(15))).toBeUndefined();
    expect(await refusal(aliases(16))).toBe("TOO_MANY_ALIASES");
  });

  it("refuses more than 20 root fields (TOO_MANY_ROOT_FIELDS), fragments included", async () => {
    const many = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 100, maxRootFields: 20, maxTokens: 1000, maxCost: 10_000, listFactor: 10 } });
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: versionVersion`).join(" ");
    expect((await many.post(`{ ${fields(20)} }`)).body.errors).toBeUndefined();
    expect((await many.post(`{ ...F } fragment F on Query { ${fields(21)} }`)).body.errors?.[0]?.extensions.code).toBe("TOO_MANY_ROOT_FIELDS");
  });

  it("refuses more than 1000 tokens (TOO_MANY_TOKENS)", async () => {
    const tokens = `{ ${"versionVersion ".repeat(1000)} }`;
    expect(await refusal(tokens)).toBe("TOO_MANY_TOKENS");
  });

  it("refuses an estimated cost over the maximum (QUERY_TOO_COSTLY), counting limits", async () => {
    const nested = (outer: string, inner: string) => `{ Posts${outer} { results { slug comments${inner} { results { content } } } } }`;
    expect(await refusal(nested("(limit: 50)", "(limit: 50)"))).toBeUndefined();
    expect(await refusal(nested("", ""))).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`query($n: Long) { Posts(limit: $n) { results { comments(limit: $n) { results { content } } } } }`, { n: 1000 })).toBe(
      "QUERY_TOO_COSTLY",
    );
    expect(await refusal(`{ Posts(limit: 50) { results { author { username } tags { name } } } }`)).toBeUndefined();
  });

  it("counts a list by the LIMIT of its query string, a variable by its value, and relation lists by their own limit", async () => {
    expect(await refusal(`{ Posts(query: "LIMIT 1000") { results { slug tags { slug } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`{ Posts(query: "status = 'published' LIMIT 50") { results { slug tags { slug } } } }`)).toBeUndefined();
    expect(await refusal(`query($q: String) { Posts(query: $q) { results { slug tags { slug } } } }`, { q: "LIMIT 1000" })).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`query($q: String) { Posts(query: $q) { results { slug tags { slug } } } }`, { q: "status = 'published' LIMIT 50" })).toBeUndefined();
    expect(await refusal(`{ Posts(limit: 100) { results { tags(limit: 100) { slug } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`{ Posts(limit: 100) { results { tags(limit: 5) { slug } } } }`)).toBeUndefined();
    // Ten aliases of a small page pass; ten of the largest do not.
    const aliased = (q: string) => `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: Posts(query: "${q}") { results { slug title } }`).join(" ")} }`;
    expect(await refusal(aliased("LIMIT 10"))).toBeUndefined();
    expect(await refusal(aliased("LIMIT 1000"))).toBe("QUERY_TOO_COSTLY");
  });

  // A typed client sends every limit as a variable: the cost is the request's, not the worst case.
  const front = `query($l: Long) { Posts(limit: $l) { results { slug author { username } comments(limit: 10) { results { content } } tags(limit: 10) { name } } } }`;

  it("counts a variable limit by the value the request gives it: 100 runs, 1000 is refused naming the costliest field", async () => {
    expect(await refusal(front, { l: 100 })).toBeUndefined();
    const refused = await g.post(front, { variables: { l: 1000 } });
    const error = refused.body.errors?.[0];
    expect(error?.extensions.code).toBe("QUERY_TOO_COSTLY");
    // Posts, then per post: results, slug, author, username, comments, tags, 10 x (results, content), 10 x name.
    expect(error?.extensions.actual).toBe(1 + 1000 * (6 + 10 * 2 + 10));
    // Per post: 10 comments of two fields each (results, content), 10 tags of one.
    expect(error?.extensions.field).toBe("Post.comments");
    expect(error?.message).toMatch(/the costliest field is Post\.comments/);
    // Tags now weigh most.
    const tags = await g.post(front.replace("tags(limit: 10) { name }", "tags(limit: 100) { name slug }"), { variables: { l: 50 } });
    expect(tags.body.errors?.[0]?.extensions.field).toBe("Post.tags");
  });

  it("counts a missing or null variable as the field's default, and a variable's own default as given", async () => {
    // Posts' default page is 100: as if $l were 100.
    expect(await refusal(front)).toBeUndefined();
    expect(await refusal(front, { l: null })).toBeUndefined();
    const comments = `query($c: Long) { Posts(limit: 100) { results { comments(limit: $c) { results { content } } } } }`;
    expect(await refusal(comments, { c: 10 })).toBeUndefined();
    expect(await refusal(comments, { c: 1000 })).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`query($l: Long = 1000) { Posts(limit: $l) { results { comments(limit: 10) { results { content } } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`query($l: Long = 1000) { Posts(limit: $l) { results { comments(limit: 10) { results { content } } } } }`, { l: 50 })).toBeUndefined();
    // A value the resolver would not take counts as the maximum.
    expect(await refusal(front, { l: "many" })).toBe("QUERY_TOO_COSTLY");
  });

  it("validates a repeated document once: each request's cost comes from the cached analysis", async () => {
    const fresh = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 15, maxRootFields: 20, maxTokens: 1000, maxCost: 10_000, listFactor: 10 } });
    const { documents } = fresh.handler.endpoint;
    for (const l of [100, 1000, 5, 1000, 100]) {
      const answer = await fresh.post(front, { variables: { l } });
      expect(answer.body.errors?.[0]?.extensions.code).toBe(l === 1000 ? "QUERY_TOO_COSTLY" : undefined);
    }
    expect(documents.validations).toBe(1);
    // Over GET (graphql-helix's path) the variables count too.
    expect((await fresh.get(front, { variables: { l: 1000 } })).body.errors?.[0]?.extensions.code).toBe("QUERY_TOO_COSTLY");
    expect((await fresh.get(front, { variables: { l: 100 } })).body.errors).toBeUndefined();
    expect(documents.validations).toBe(1);
  });

  it("lets GraphiQL's schema query pass: introspection nests deeper than 10 but is not counted for depth", async () => {
    const { getIntrospectionQuery } = await import("graphql");
    const answer = await g.post(getIntrospectionQuery());
    expect(answer.body.errors).toBeUndefined();
  });

  // The issue's cases: 300 aliased __typename passed (alias limit 15), inside Posts(limit: 1000)
  // too, and 15 aliased introspection queries answered 543 KB; all passed on the old code.
  it("counts __typename toward aliases and cost like any other field", async () => {
    const typenames = (n: number) => Array.from({ length: n }, (_, i) => `t${i}: __typename`).join(" ");
    expect(await refusal(`{ ${typenames(15)} }`)).toBeUndefined();
    expect(await refusal(`{ ${typenames(16)} }`)).toBe("TOO_MANY_ALIASES");
    expect(await refusal(`{ ${typenames(300)} }`)).toBe("TOO_MANY_ALIASES");
    const wide = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 1000, maxRootFields: 20, maxTokens: 2000, maxCost: 10_000, listFactor: 10 } });
    const inList = await wide.post(`{ Posts(limit: 1000) { results { ${typenames(10)} } } }`);
    expect(inList.body.errors?.[0]?.extensions.code).toBe("QUERY_TOO_COSTLY");
    expect((await wide.post(`{ Posts(limit: 1000) { results { slug } } }`)).body.errors).toBeUndefined();
  });

  it("counts introspection toward aliases and cost, each field once", async () => {
    const schemaQuery = "__schema { types { name fields { name } } }";
    expect(await refusal(`{ ${Array.from({ length: 15 }, (_, i) => `s${i}: ${schemaQuery}`).join(" ")} }`)).toBeUndefined();
    expect(await refusal(`{ ${Array.from({ length: 16 }, (_, i) => `s${i}: ${schemaQuery}`).join(" ")} }`)).toBe("TOO_MANY_ALIASES");
    expect(await refusal(`{ ${Array.from({ length: 16 }, (_, i) => `s${i}: __type(name: "Post") { name }`).join(" ")} }`)).toBe("TOO_MANY_ALIASES");
    // Five fields a schema query (__schema, types, name, fields, name): four cost 20, five 25.
    const tight = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 15, maxRootFields: 20, maxTokens: 1000, maxCost: 20, listFactor: 10 } });
    const schemas = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `s${i}: ${schemaQuery}`).join(" ")} }`;
    expect((await tight.post(schemas(4))).body.errors).toBeUndefined();
    expect((await tight.post(schemas(5))).body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([["QUERY_TOO_COSTLY", 25]]);
  });

  // Found by the fuzzer: each fragment spreading the next twice made the limits walk 2^depth
  // selections (40 deep held the function for its whole timeout). Fragments are now measured once.
  it("measures fragment bombs without expanding them: root fields, aliases, depth and cost still add up", async () => {
    const chain = (n: number, on: string, body: string) =>
      Array.from({ length: n }, (_, i) => `fragment F${i} on ${on} { ${body} ${i + 1 < n ? `...F${i + 1} ...F${i + 1}` : ""} }`).join("\n");
    const roots = await g.post(`{ ...F0 }\n${chain(40, "Query", "versionVersion")}`);
    expect(roots.body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([
      ["TOO_MANY_ROOT_FIELDS", 2 ** 40 - 1],
      ["QUERY_TOO_COSTLY", 2 ** 40 - 1],
    ]);
    // 15 aliases (and root fields) through four levels pass; 31 through five do not.
    expect((await g.post(`{ ...F0 }\n${chain(4, "Query", "v: versionVersion")}`)).body.errors).toBeUndefined();
    const aliases = await g.post(`{ ...F0 }\n${chain(5, "Query", "v: versionVersion")}`);
    expect(aliases.body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([
      ["TOO_MANY_ALIASES", 31],
      ["TOO_MANY_ROOT_FIELDS", 31],
    ]);
    const cost = await g.post(`{ Posts(limit: 10) { results { ...F0 } } }\n${chain(30, "Post", "slug")}`);
    expect(cost.body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([["QUERY_TOO_COSTLY", 1 + 10 + 10 * (2 ** 30 - 1)]]);
    // Depth through spreads: a fragment at depth 2 whose own fields nest 2 more.
    const deep = await refusal(
      `{ Comments(limit: 1) { results { ...C } } } fragment C on Comment { post { comments(limit: 1) { results { post { comments(limit: 1) { results { post { comments(limit: 1) { results { slug: content } } } } } } } } } }`,
    );
    expect(deep).toBe("QUERY_TOO_DEEP");
  });
});
