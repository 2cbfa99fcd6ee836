import { describe, expect, it } from "vitest";
import { graphqlBlog } from "./support.ts";

const g = graphqlBlog({ limits: { maxDepth: 10, maxAliases: 15, maxRootFields: 20, maxTokens: 1000, maxCost: 10_000, listFactor: 10 } });

async function refusal(query: string): Promise<string | undefined> {
  const answer = await g.post(query, { accept: "application/graphql-response+json" });
  if (answer.body.errors) expect(answer.statusCode).toBe(400);
  return answer.body.errors?.[0]?.extensions.code;
}

describe("abuse limits, before any resolver runs", () => {
  it("refuses depth beyond 10 (QUERY_TOO_DEEP) and allows 10", async () => {
    // Comments 1, results 2, post 3, comments 4, results 5, post 6, comments 7, results 8, post 9.
    const nest = (leaf: string) => `{ Comments(limit: 1) { results { post { comments(limit: 1) { results { post { comments(limit: 1) { results { post { ${leaf} } } } } } } } } } }`;
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
    expect(await refusal(`query($n: Long) { Posts(limit: $n) { results { comments(limit: $n) { results { content } } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`{ Posts(limit: 50) { results { author { username } tags { name } } } }`)).toBeUndefined();
  });

  it("counts a list by the LIMIT of its query string, the maximum for a variable, and relation lists by their own limit", async () => {
    expect(await refusal(`{ Posts(query: "LIMIT 1000") { results { slug tags { slug } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`{ Posts(query: "status = 'published' LIMIT 50") { results { slug tags { slug } } } }`)).toBeUndefined();
    expect(await refusal(`query($q: String) { Posts(query: $q) { results { slug tags { slug } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`{ Posts(limit: 100) { results { tags(limit: 100) { slug } } } }`)).toBe("QUERY_TOO_COSTLY");
    expect(await refusal(`{ Posts(limit: 100) { results { tags(limit: 5) { slug } } } }`)).toBeUndefined();
    // Ten aliases of a small page pass; ten of the largest do not.
    const aliased = (q: string) => `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: Posts(query: "${q}") { results { slug title } }`).join(" ")} }`;
    expect(await refusal(aliased("LIMIT 10"))).toBeUndefined();
    expect(await refusal(aliased("LIMIT 1000"))).toBe("QUERY_TOO_COSTLY");
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
    expect(roots.body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([["TOO_MANY_ROOT_FIELDS", 2 ** 40 - 1], ["QUERY_TOO_COSTLY", 2 ** 40 - 1]]);
    // 15 aliases (and root fields) through four levels pass; 31 through five do not.
    expect((await g.post(`{ ...F0 }\n${chain(4, "Query", "v: versionVersion")}`)).body.errors).toBeUndefined();
    const aliases = await g.post(`{ ...F0 }\n${chain(5, "Query", "v: versionVersion")}`);
    expect(aliases.body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([["TOO_MANY_ALIASES", 31], ["TOO_MANY_ROOT_FIELDS", 31]]);
    const cost = await g.post(`{ Posts(limit: 10) { results { ...F0 } } }\n${chain(30, "Post", "slug")}`);
    expect(cost.body.errors?.map((e) => [e.extensions.code, e.extensions.actual])).toEqual([["QUERY_TOO_COSTLY", 1 + 10 + 10 * (2 ** 30 - 1)]]);
    // Depth through spreads: a fragment at depth 2 whose own fields nest 2 more.
    const deep = await refusal(`{ Comments(limit: 1) { results { ...C } } } fragment C on Comment { post { comments(limit: 1) { results { post { comments(limit: 1) { results { post { comments(limit: 1) { results { slug: content } } } } } } } } } }`);
    expect(deep).toBe("QUERY_TOO_DEEP");
  });
});
