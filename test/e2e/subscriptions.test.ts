import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, QueryCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { realtimeTableNames } from "../../lib/realtime/tables.ts";
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";
import { waitFor as waitUntil } from "../support/wait.ts";

const ALICE = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0a11";
const BOB = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0b22";
const WS_URL = "ws://127.0.0.1:3001";
const TABLES = realtimeTableNames("blog-local-");
const run = `${Date.now().toString(36)}`;
// Stream delivery is ~1 s offline, but a poller retry on a loaded 2-core CI machine can take far longer.
const DELIVERY_MS = 40_000;

let offline: Offline | undefined;
let db: DynamoDBDocumentClient;
const clients: Client[] = [];

beforeAll(async () => {
  offline = await sharedOffline();
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline.output())?.[1];
  if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline.output()}`);
  db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
}, 400_000);

afterAll(async () => {
  for (const client of clients) {
    try {
      client.terminate();
    } catch {
      // Never connected: nothing to close.
    }
  }
  db?.destroy();
  await offline?.stop();
}, 60_000);

function connect(name: string, testUser?: string): Client {
  let n = 0;
  const client = createClient({
    url: WS_URL,
    webSocketImpl: WebSocket,
    connectionParams: testUser ? { testUser } : {},
    retryAttempts: 0,
    lazy: true,
    // Known ids let the test find the rows the server stored for them.
    generateID: () => `${name}-${run}-${++n}`,
  });
  clients.push(client);
  return client;
}

interface Feed {
  data: unknown[];
  errors: unknown[];
  stop: () => void;
}

function subscribe(client: Client, query: string): Feed {
  const feed: Feed = { data: [], errors: [], stop: () => undefined };
  feed.stop = client.subscribe<Record<string, unknown>>(
    { query },
    {
      next: (value) => feed.data.push(value.data),
      error: (error) => feed.errors.push(error),
      complete: () => undefined,
    },
  );
  return feed;
}

async function rowsWithId(prefix: string): Promise<Record<string, unknown>[]> {
  // A Scan is fine in a test of a tiny local table; the service itself never scans it.
  try {
    const out = await db.send(
      new ScanCommand({ TableName: TABLES.subscriptions, FilterExpression: "begins_with(id, :p)", ExpressionAttributeValues: { ":p": prefix } }),
    );
    return out.Items ?? [];
  } catch (error) {
    // The WebSocket function creates its tables at its first cold start under offline.
    if (error instanceof Error && error.name === "ResourceNotFoundException") return [];
    throw error;
  }
}

const waitFor = <T>(probe: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeout = DELIVERY_MS): Promise<T> =>
  waitUntil(probe, done, what, timeout);

async function rest(method: string, path: string, user: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${offline?.url}${path}`, {
    method,
    headers: { "x-test-user": user, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response;
}

async function graphql(query: string, user: string, variables: Record<string, unknown> = {}): Promise<unknown> {
  const response = await fetch(`${offline?.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-user": user },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const post = (slug: string, status: string, title = `Title ${slug}`) => ({ slug, title, content: "c", status, viewCount: 0 });
const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key post { slug status title } } }`;
const ALL = `subscription { Posts { type post { slug status } } }`;
const ours = (feed: Feed) => feed.data.filter((d) => JSON.stringify(d).includes(run));

describe("GraphQL subscriptions over the WebSocket of npm start (offline + DynamoDB Local streams)", () => {
  it("delivers exactly the matching events, in order, for writes over REST and over GraphQL", async () => {
    const bob = connect("bob", BOB);
    const alice = connect("alice", ALICE);
    const rs = `rest-${run}`;
    const gq = `gql-${run}`;
    const draft = `draft-${run}`;
    const published = subscribe(bob, PUBLISHED);
    const bobAll = subscribe(bob, ALL);
    const aliceAll = subscribe(alice, ALL);
    const watched = subscribe(alice, `subscription { Post(slug: "${rs}") { slug title status } }`);
    await waitFor(
      () => rowsWithId(`bob-${run}`),
      (rows) => rows.length === 2,
      "Bob's subscription rows",
    );
    await waitFor(
      () => rowsWithId(`alice-${run}`),
      (rows) => rows.length === 2,
      "Alice's subscription rows",
    );

    await rest("POST", "/posts", ALICE, post(rs, "published"));
    await rest("PATCH", `/posts/${rs}`, ALICE, { slug: rs, title: "Patched" });
    await rest("PUT", `/posts/${rs}`, ALICE, post(rs, "published", "Replaced"));
    await rest("POST", "/posts", ALICE, post(draft, "draft"));
    await rest("DELETE", `/posts/${rs}`, ALICE);
    await graphql(
      `
        mutation ($p: PostInput!) {
          createPost(Post: $p) {
            slug
          }
        }
      `,
      ALICE,
      { p: post(gq, "published") },
    );
    await graphql(`mutation($p: PostInput!) { updatePost(uuid: "${gq}", Post: $p) { slug } }`, ALICE, { p: post(gq, "published", "Updated") });
    await graphql(`mutation { deletePost(uuid: "${gq}") { success } }`, ALICE);

    const expected = [
      { Posts: { type: "CREATED", key: { slug: rs }, post: { slug: rs, status: "published", title: `Title ${rs}` } } },
      { Posts: { type: "UPDATED", key: { slug: rs }, post: { slug: rs, status: "published", title: "Patched" } } },
      { Posts: { type: "UPDATED", key: { slug: rs }, post: { slug: rs, status: "published", title: "Replaced" } } },
      { Posts: { type: "DELETED", key: { slug: rs }, post: { slug: rs, status: "published", title: "Replaced" } } },
      { Posts: { type: "CREATED", key: { slug: gq }, post: { slug: gq, status: "published", title: `Title ${gq}` } } },
      { Posts: { type: "UPDATED", key: { slug: gq }, post: { slug: gq, status: "published", title: "Updated" } } },
      { Posts: { type: "DELETED", key: { slug: gq }, post: { slug: gq, status: "published", title: "Updated" } } },
    ];
    // The positive control: one later write every feed must receive. Until it has arrived on a
    // feed, "nothing more arrived" (no draft for Bob, no extra event) would prove nothing: the
    // deliveries may only be slow.
    await rest("POST", "/posts", ALICE, post(rs, "published", "Control"));
    // Seen as the title where the feed selects it, else as the second creation of the same slug.
    const control = (feed: Feed) =>
      JSON.stringify(feed.data).includes('"Control"') || JSON.stringify(feed.data).split(`"CREATED","post":{"slug":"${rs}"`).length > 2;
    for (const [name, feed] of Object.entries({ published, bobAll, aliceAll, watched })) await waitFor(() => feed, control, `the control event on ${name}`);
    const controlEvent = { Posts: { type: "CREATED", key: { slug: rs }, post: { slug: rs, status: "published", title: "Control" } } };
    expect(ours(published)).toEqual([...expected, controlEvent]);
    expect(watched.data).toEqual([
      { Post: { slug: rs, title: `Title ${rs}`, status: "published" } },
      { Post: { slug: rs, title: "Patched", status: "published" } },
      { Post: { slug: rs, title: "Replaced", status: "published" } },
      { Post: null },
      { Post: { slug: rs, title: "Control", status: "published" } },
    ]);
    // A draft of another user never reaches Bob (written before the control he did receive); its author sees it.
    expect(JSON.stringify(bobAll.data)).not.toContain(draft);
    expect(ours(bobAll)).toHaveLength(8);
    expect(ours(aliceAll).map((d) => (d as { Posts: { post: { slug: string } } }).Posts.post.slug)).toEqual([rs, rs, rs, draft, rs, gq, gq, gq, rs]);
    expect([published, bobAll, aliceAll, watched].flatMap((f) => f.errors)).toEqual([]);
  }, 120_000);

  it("stops delivery after complete", async () => {
    const carol = connect("carol");
    const slug = `complete-${run}`;
    const feed = subscribe(carol, PUBLISHED); // id carol-<run>-1
    // The positive control on the same connection: it stays subscribed and must see the later writes.
    const control = subscribe(carol, ALL); // id carol-<run>-2
    await waitFor(
      () => rowsWithId(`carol-${run}`),
      (rows) => rows.length === 2,
      "Carol's subscription rows",
    );
    await graphql(
      `
        mutation ($p: PostInput!) {
          createPost(Post: $p) {
            slug
          }
        }
      `,
      ALICE,
      { p: post(slug, "published") },
    );
    await waitFor(
      () => ours(feed),
      (d) => d.length === 1,
      "the first event",
    );
    feed.stop();
    // Gone, or a completion tombstone (lib/realtime/store.ts: a complete that finds no row, e.g. a
    // repeated one, leaves one so a late subscribe is dropped): no live subscription either way.
    await waitFor(
      () => rowsWithId(`carol-${run}-1`),
      (rows) => rows.every((r) => r.state === "completed"),
      "the completed subscription's row to go",
    );
    await graphql(`mutation { deletePost(uuid: "${slug}") { success } }`, ALICE);
    // A second published post after the delete: once the control has it, the delete (and this
    // post) went out to Carol's connection, and the completed subscription must have had neither.
    const later = `complete-later-${run}`;
    await graphql(
      `
        mutation ($p: PostInput!) {
          createPost(Post: $p) {
            slug
          }
        }
      `,
      ALICE,
      { p: post(later, "published") },
    );
    await waitFor(
      () => ours(control),
      (d) => JSON.stringify(d).includes(later),
      "the control event after complete",
    );
    expect(
      ours(control)
        .map((d) => (d as { Posts: { type: string; post: { slug: string } } }).Posts)
        .map((p) => `${p.type} ${p.post.slug}`),
    ).toEqual([`CREATED ${slug}`, `DELETED ${slug}`, `CREATED ${later}`]);
    expect(ours(feed)).toHaveLength(1);
  }, 120_000);

  it("cleans up the rows of a client that disconnects without complete", async () => {
    const dave = connect("dave");
    subscribe(dave, PUBLISHED);
    subscribe(dave, `subscription { Post(slug: "x-${run}") { slug } }`);
    const rows = await waitFor(
      () => rowsWithId(`dave-${run}`),
      (r) => r.length === 2,
      "Dave's subscription rows",
    );
    const connectionId = rows[0]?.connectionId as string;
    dave.terminate();
    await waitFor(
      async () => {
        const subs = await db.send(
          new QueryCommand({ TableName: TABLES.subscriptions, KeyConditionExpression: "connectionId = :c", ExpressionAttributeValues: { ":c": connectionId } }),
        );
        const conn = await db.send(
          new QueryCommand({ TableName: TABLES.connections, KeyConditionExpression: "connectionId = :c", ExpressionAttributeValues: { ":c": connectionId } }),
        );
        return (subs.Items?.length ?? 0) + (conn.Items?.length ?? 0);
      },
      (count) => count === 0,
      "the disconnected client's rows to go",
    );
  }, 120_000);

  it("answers a bad filter with an error message and keeps the connection", async () => {
    const erin = connect("erin");
    const bad = subscribe(erin, `subscription { Posts(query: "status = = 'x'") { type } }`);
    const errors = await waitFor(
      () => bad.errors,
      (e) => e.length === 1,
      "the error message",
    );
    expect(errors[0]).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "BAD_QUERY" }) })]);
    const good = subscribe(erin, PUBLISHED);
    await waitFor(
      () => rowsWithId(`erin-${run}`),
      (rows) => rows.length === 1,
      "the valid subscription on the same connection",
    );
    expect(good.errors).toEqual([]);
  }, 120_000);
});
