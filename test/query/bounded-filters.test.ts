import { describe, expect, it } from "vitest";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { MAX_LIKE_LENGTH, MAX_NESTING } from "../../lib/query/limits.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { call, httpEvent, lambdaContext } from "../support/http-events.ts";
import { asServerlessOffline } from "../support/offline-env.ts";

asServerlessOffline();

/**
 * The inputs on each face, in process: nesting that overflowed the parser's stack (a 500
 * on REST, INTERNAL_SERVER_ERROR on GraphQL before this change) and patterns past the LIKE limits
 * answer BAD_QUERY; a long pattern within the limits still filters.
 */
const app = blog();
const rest = restHandler(app);
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
const graphql = graphqlHandler(app) as unknown as Handler;

async function restQuery(q: string): Promise<{ statusCode: number; body: unknown }> {
  return call(rest, httpEvent("PUT", "/posts", { body: { q } }));
}

async function graphqlQuery(q: string): Promise<{ data?: unknown; errors?: { message: string; extensions: { code: string } }[] }> {
  const answer = await graphql(httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body: { query: "query ($q: String) { Posts(query: $q) { results { slug } } }", variables: { q } } }), lambdaContext());
  return JSON.parse(answer.body ?? "") as { errors?: { message: string; extensions: { code: string } }[] };
}

const refused: [string, string][] = [
  ["15,000 parentheses", "(".repeat(15_000) + "status = 'published'" + ")".repeat(15_000)],
  ["NOT 20,000 times", "NOT ".repeat(20_000) + "status = 'published'"],
  [`${MAX_NESTING + 1} levels`, "(".repeat(MAX_NESTING + 1) + "status = 'published'" + ")".repeat(MAX_NESTING + 1)],
  ["a 4,000-character LIKE pattern", `content LIKE '%${"a".repeat(4000)}_b'`],
  ["a LIKE pattern of 40 wildcards", `content LIKE '${"%a_".repeat(20)}'`],
];

describe("bounded filters on every face", () => {
  it.each(refused)("REST answers 400 BAD_QUERY to %s", async (_name, q) => {
    const answer = await restQuery(q);
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toMatchObject({ code: 400, errors: [{ path: "/q" }] });
  });

  it.each(refused)("GraphQL answers extensions.code BAD_QUERY to %s", async (_name, q) => {
    const body = await graphqlQuery(q);
    expect(body.errors?.map((error) => error.extensions.code)).toEqual(["BAD_QUERY"]);
  });

  it("a long pattern within the limits still filters, on both faces", async () => {
    const content = "a".repeat(20_000) + "xb";
    const created = await call(rest, httpEvent("POST", "/posts", { body: { ...post("long-a"), content, status: "published" }, headers: { "x-test-user": ALICE } }));
    expect(created.statusCode).toBe(200);
    const pattern = `%${"a".repeat(MAX_LIKE_LENGTH - 4)}_b`;
    const hit = await restQuery(`content LIKE '${pattern}'`);
    expect(hit.body).toMatchObject({ results: [{ slug: "long-a" }] });
    const miss = await graphqlQuery(`content LIKE '${pattern}c'`);
    expect(miss).toEqual({ data: { Posts: { results: [] } } });
  });
});
