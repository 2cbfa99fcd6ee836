import { ClientError, GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlBlog } from "../graphql/support.ts";
import { serveHandlers } from "../graphql/serve.ts";

// A typed client sends every argument as a variable (graphql-codegen's operations, graphql-request's
// `request<Data, Variables>`): the cost limit must count the values it sends, not the worst case.
const FRONT_PAGE = /* GraphQL */ `
  query FrontPage($limit: Long, $offset: String) {
    Posts(limit: $limit, offset: $offset) {
      results {
        slug
        title
        author {
          username
        }
        comments(limit: 10) {
          results {
            content
          }
        }
        tags(limit: 10) {
          name
        }
      }
      continuationToken
    }
  }
`;

interface FrontPage {
  Posts: { results: { slug: string; title: string }[]; continuationToken: string | null };
}
/** As the generated `QueryPostsArgs` types them (test/clients/typed-clients.test.ts compiles the generated types). */
interface FrontPageVariables {
  limit?: number | null;
  offset?: string | null;
}

let server: Awaited<ReturnType<typeof serveHandlers>>;
let client: GraphQLClient;

beforeAll(async () => {
  const { handler } = graphqlBlog();
  server = await serveHandlers([["/graphql", handler as unknown as Parameters<typeof serveHandlers>[0][0][1]]]);
  client = new GraphQLClient(`${server.url}/graphql`);
});
afterAll(async () => {
  await server.close();
});

describe("a typed client's variable limits", () => {
  it("runs the front page with $limit = 100, and with no limit (the default page)", async () => {
    for (const variables of [{ limit: 100 }, {}, { limit: null }] satisfies FrontPageVariables[]) {
      const data = await client.request<FrontPage, FrontPageVariables>(FRONT_PAGE, variables);
      expect(Array.isArray(data.Posts.results)).toBe(true);
    }
  });

  it("is refused QUERY_TOO_COSTLY with $limit = 1000, the message naming the costliest field", async () => {
    const error = await client.request<FrontPage, FrontPageVariables>(FRONT_PAGE, { limit: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    const [first] = (error as ClientError).response.errors ?? [];
    expect(first?.extensions?.code).toBe("QUERY_TOO_COSTLY");
    expect(first?.message).toMatch(/costliest field is Post\.comments/);
  });
});
