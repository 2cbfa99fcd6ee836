import { auditServer } from "graphql-http";
import { describe, expect, it } from "vitest";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { blog } from "../support/blog.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; headers?: Record<string, string>; body?: string }>;

/** A fetch that hands each request to the Lambda handler as API Gateway (payload 2.0) would. */
function lambdaFetch(handler: Handler): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    const event = httpEvent(request.method, `${url.pathname}${url.search}`, {
      routeKey: `${request.method} /graphql`,
      headers,
      ...(body !== undefined ? { rawBody: body } : {}),
    });
    const answer = await handler(event, lambdaContext());
    return new Response(answer.body ?? null, { status: answer.statusCode, headers: answer.headers ?? {} });
  };
}

describe("GraphQL-over-HTTP conformance (graphql-http's server audit, in process)", () => {
  it("passes every audit: MUST, SHOULD and MAY (61/61)", async () => {
    const handler = graphqlHandler(blog()) as unknown as Handler;
    const results = await auditServer({ url: "http://localhost/graphql", fetchFn: lambdaFetch(handler) });
    const failed = results.filter((r) => r.status !== "ok").map((r) => `${r.id} ${r.name}: ${"reason" in r ? r.reason : ""}`);
    expect(failed).toEqual([]);
    expect(results.length).toBe(61);
  });

  it("answers POST and GET alike, and batched, invalid and uncoercible requests as request errors", async () => {
    const handler = graphqlHandler(blog());
    const call = (event: ReturnType<typeof httpEvent>) => (handler as unknown as Handler)(event, lambdaContext());
    const post = (body: unknown) => call(httpEvent("POST", "/graphql", { routeKey: "POST /graphql", body }));
    const lean = await post({ query: "{ __typename }" });
    expect(lean.statusCode).toBe(200);
    expect(JSON.parse(lean.body ?? "")).toEqual({ data: { __typename: "Query" } });
    const get = await call(httpEvent("GET", "/graphql?query=%7B__typename%7D", { routeKey: "GET /graphql" }));
    expect(JSON.parse(get.body ?? "")).toEqual({ data: { __typename: "Query" } });
    // Batched (an array), invalid documents and uncoercible variables answer as before.
    expect((await post([{ query: "{ __typename }" }])).statusCode).toBe(400);
    expect((await post({ query: "{ nope }" })).body).toContain("GRAPHQL_VALIDATION_FAILED");
    const badVariables = await post({ query: "query ($s: String!) { Post(slug: $s) { slug } }", variables: { s: 1 } });
    expect(JSON.parse(badVariables.body ?? "").data).toBeUndefined();
    // Errors from resolvers keep their format.
    const refused = await post({ query: `{ Posts(query: "nope = ") { results { slug } } }` });
    const body = JSON.parse(refused.body ?? "") as { data: unknown; errors: { message: string; extensions: { code: string } }[] };
    expect(body.data).toEqual({ Posts: null });
    expect(body.errors[0]?.extensions.code).toBe("BAD_QUERY");
  });

  it("refuses a non-object `extensions` with 400, in POST bodies and GET parameters", async () => {
    const handler = graphqlHandler(blog()) as unknown as Handler;
    for (const extensions of ["x", 1, [], true]) {
      const answer = await handler(
        httpEvent("POST", "/graphql", {
          routeKey: "POST /graphql",
          headers: { accept: "application/graphql-response+json" },
          body: { query: "{ __typename }", extensions },
        }),
        lambdaContext(),
      );
      expect(answer.statusCode, JSON.stringify(extensions)).toBe(400);
    }
    const get = await handler(httpEvent("GET", "/graphql?query=%7B__typename%7D&extensions=%22x%22", { routeKey: "GET /graphql" }), lambdaContext());
    expect(get.statusCode).toBe(400);
  });
});
