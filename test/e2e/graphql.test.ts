import { ClientError, GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";

const ALICE = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a00e2";
let offline: Offline | undefined;
let client: GraphQLClient;

beforeAll(async () => {
  offline = await sharedOffline();
  client = new GraphQLClient(`${offline.url}/graphql`);
}, 400_000);

afterAll(async () => {
  await offline?.stop();
}, 60_000);

describe("GraphQL end to end (npm start: serverless offline + DynamoDB Local)", () => {
  it("answers a query", async () => {
    expect(await client.request<{ versionVersion: string }>(`{ versionVersion }`)).toEqual({ versionVersion: pkg.version });
  });

  it("runs mutations as the test user and reads the result back", async () => {
    const alice = new GraphQLClient(`${offline?.url}/graphql`, { headers: { "x-test-user": ALICE } });
    const slug = `e2e-${Date.now()}`;
    // Alice may exist from an earlier run on a kept database: only that conflict is expected.
    await alice.request(`mutation { createUser(User: {username: "alice", name: "Alice"}) { uuid } }`).catch((error: unknown) => {
      const codes = error instanceof ClientError ? (error.response.errors ?? []).map((e) => e.extensions?.code) : [];
      if (codes.length !== 1 || codes[0] !== "CONFLICT") throw error;
    });
    const created = await alice.request<{ createPost: { slug: string; author: { uuid: string } } }>(
      `mutation($p: PostInput!) { createPost(Post: $p) { slug author { uuid } } }`,
      { p: { slug, title: "End to end", content: "c", status: "published", viewCount: 0 } },
    );
    expect(created.createPost).toEqual({ slug, author: { uuid: ALICE } });
    const read = await client.request<{ Post: { slug: string; author: { username: string; email: string | null } } }>(
      `query($s: String!) { Post(slug: $s) { slug author { username email } } }`,
      { s: slug },
    );
    expect(read.Post).toEqual({ slug, author: { username: "alice", email: null } });
    expect(await alice.request(`{ me { uuid } }`)).toEqual({ me: { uuid: ALICE } });
  });

  it("answers introspection", async () => {
    const answer = await client.request<{
      __schema: { queryType: { name: string }; mutationType: { name: string }; subscriptionType: { name: string } | null };
    }>(`{ __schema { queryType { name } mutationType { name } subscriptionType { name } } }`);
    expect(answer.__schema).toEqual({ queryType: { name: "Query" }, mutationType: { name: "Mutation" }, subscriptionType: { name: "Subscription" } });
  });

  it("reports errors with their code", async () => {
    const error = await client.request(`mutation { deletePost(uuid: "nope-${Date.now()}") { success } }`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).response.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  it("serves the GraphiQL page as text/html", async () => {
    const page = await fetch(`${offline?.url}/graphql`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.url).toMatch(/\/graphiql$/);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    // Assets are named by their content hash (served immutable).
    const asset = /graphiql\/graphiql\.[\w-]+\.js/.exec(await page.text())?.[0];
    expect(asset).toBeDefined();
    const script = await fetch(`${offline?.url}/${asset}`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
  });
});
