import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { type DeliveryReport } from "../../lib/realtime/delivery-report.ts";
import { PARSED_FILTERS_KEPT } from "../../lib/realtime/fanout.ts";
import type { Realtime } from "../../lib/realtime/realtime.ts";
import type { RealtimeRepositories } from "../../lib/realtime/store.ts";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { ALICE, BOB, as, blog, model, post } from "../support/blog.ts";
import { apiError, dynamoRepositories, ENDPOINT, FakeTransport, memoryRepositories, realtimeFor, subscribeOver } from "./support.ts";

const users = connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } });
const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key post { slug status title } } }`;

interface Setup {
  app: Application;
  transport: FakeTransport;
  realtime: Realtime;
  /** What each in-process delivery reported. */
  reports: DeliveryReport[];
}

function setup(latencyMs: number, options: Parameters<typeof realtimeFor>[3] = {}, repositories: RealtimeRepositories = memoryRepositories()): Setup {
  const app = blog();
  const transport = new FakeTransport(latencyMs);
  const realtime = realtimeFor(app, transport, repositories, options, users);
  const reports: DeliveryReport[] = [];
  // In-process delivery for these tests; the deployed path feeds the same Fanout from the streams.
  app.events.on("*", async (event) => {
    reports.push(await realtime.fanout.deliver(event));
  });
  return { app, transport, realtime, reports };
}

async function subscriber({ realtime }: Setup, connectionId: string, query: string, user?: string, id = "s"): Promise<void> {
  await subscribeOver(realtime, connectionId, query, { ...(user ? { user } : {}), id });
}

/** What reached a connection after the ack: the `next` payloads' data. */
function received(transport: FakeTransport, connectionId: string): unknown[] {
  return transport
    .messages(connectionId)
    .filter((m) => m.type === MessageType.Next)
    .map((m) => (m.payload as { data: unknown }).data);
}

describe("fan-out of 1,000 subscriptions", () => {
  it("executes once per value shown, keeps at most `concurrency` posts in flight and reaches the bound", async () => {
    // 100 connections each for Alice and Bob, the rest anonymous: the read check is per user, but
    // all three are shown the same published post, and the selection reads nothing else.
    const s = setup(20, { concurrency: 50, maxConnectionsPerUser: 100 });
    const ids = Array.from({ length: 1000 }, (_, i) => `c${i}`);
    await Promise.all(ids.map((id, i) => subscriber(s, id, PUBLISHED, i % 10 === 0 ? ALICE : i % 10 === 1 ? BOB : undefined)));
    expect(await s.realtime.store.subscriptionsFor(["Post"])).toHaveLength(1000);
    const before = s.transport.attempts;
    s.transport.maxInFlight = 0;
    const report = await s.realtime.fanout.deliver({
      name: "Post.Created",
      model: "Post",
      kind: "Created",
      key: { slug: "p1" },
      record: { ...post("p1"), author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 },
    });
    expect(report).toEqual({
      subscriptions: 1000,
      executions: 1,
      planned: 1000,
      delivered: 1000,
      gone: 0,
      goneFrames: 0,
      failed: 0,
      timedOut: 0,
      retries: 0,
      ageMs: 0,
    });
    expect(s.transport.attempts - before).toBe(1000);
    // Parallel up to the bound and never beyond it: the pool, not the clock, is what is checked.
    expect(s.transport.maxInFlight).toBe(50);
    expect(received(s.transport, "c500")).toEqual([
      { Posts: { type: "CREATED", key: { slug: "p1" }, post: { slug: "p1", status: "published", title: "Title of p1" } } },
    ]);
  });

  it("removes gone connections, retries throttling, and lets neither a failing nor a hanging connection stop the rest", async () => {
    const s = setup(5, { concurrency: 50, postTimeoutMs: 300, postAttempts: 4, retryBaseMs: 10 });
    const ids = Array.from({ length: 1000 }, (_, i) => `c${i}`);
    await Promise.all(ids.map((id) => subscriber(s, id, PUBLISHED)));
    const gone = ["c1", "c2", "c3", "c4", "c5"];
    for (const id of gone) s.transport.on(id, async () => Promise.reject(apiError("GoneException", 410)));
    let throttles = 0;
    s.transport.on("c10", async () => {
      if (throttles++ < 2) throw apiError("LimitExceededException", 429);
    });
    s.transport.on("c11", async () => Promise.reject(apiError("InternalServerErrorException", 500)));
    s.transport.on("c12", () => new Promise<void>(() => undefined));
    const report = await s.realtime.fanout.deliver({
      name: "Post.Updated",
      model: "Post",
      kind: "Updated",
      key: { slug: "p2" },
      record: { ...post("p2"), author: ALICE, createdAt: "x", updatedAt: "y" },
    });
    expect(report).toMatchObject({ subscriptions: 1000, delivered: 993, gone: 5, failed: 1, timedOut: 1, retries: 2 });
    expect(received(s.transport, "c10")).toHaveLength(1);
    expect(received(s.transport, "c999")).toHaveLength(1);
    for (const id of gone) {
      expect(await s.realtime.store.getConnection(id)).toBeUndefined();
      expect(await s.realtime.store.subscriptionsOf(id)).toEqual([]);
    }
    expect(await s.realtime.store.subscriptionsFor(["Post"])).toHaveLength(995);
  });

  it("gives up on a connection that stays throttled after the configured attempts", async () => {
    const s = setup(0, { postAttempts: 3, retryBaseMs: 1 });
    await subscriber(s, "busy", PUBLISHED);
    s.transport.on("busy", async () => Promise.reject(apiError("LimitExceededException", 429)));
    const report = await s.realtime.fanout.deliver({
      name: "Post.Created",
      model: "Post",
      kind: "Created",
      key: { slug: "p" },
      record: { ...post("p"), author: ALICE, createdAt: "x", updatedAt: "y" },
    });
    expect(report).toMatchObject({ delivered: 0, failed: 1, retries: 2 });
  });
});

describe("what each subscriber receives", () => {
  it("checks read permission per subscriber at delivery time and filters on what the subscriber sees", async () => {
    const s = setup(0);
    const all = `subscription { Posts { type post { slug status } } }`;
    await subscriber(s, "anon", all);
    await subscriber(s, "alice", all, ALICE);
    await subscriber(s, "bob", all, BOB);
    await subscriber(s, "published", PUBLISHED, BOB);
    const info = model(s.app, "Post");
    await s.app.domain.create(as(ALICE), info, post("secret", "draft"));
    await s.app.domain.patch(as(ALICE), info, { slug: "secret" }, { status: "published" });
    await s.app.domain.patch(as(ALICE), info, { slug: "secret" }, { status: "archived" });
    const draft = { Posts: { type: "CREATED", post: { slug: "secret", status: "draft" } } };
    const published = { Posts: { type: "UPDATED", post: { slug: "secret", status: "published" } } };
    const archived = { Posts: { type: "UPDATED", post: { slug: "secret", status: "archived" } } };
    expect(received(s.transport, "alice")).toEqual([draft, published, archived]);
    expect(received(s.transport, "bob")).toEqual([published]);
    expect(received(s.transport, "anon")).toEqual([published]);
    expect(received(s.transport, "published")).toEqual([
      { Posts: { type: "UPDATED", key: { slug: "secret" }, post: { slug: "secret", status: "published", title: "Title of secret" } } },
    ]);
  });

  it("delivers the record after each change and null once deleted to a single-record subscription", async () => {
    const s = setup(0);
    const info = model(s.app, "Post");
    await subscriber(s, "watch", `subscription { Post(slug: "watched") { slug title author { uuid } } }`, BOB);
    await subscriber(s, "other", `subscription { Post(slug: "unrelated") { slug } }`, BOB);
    await s.app.domain.create(as(ALICE), info, post("watched"));
    await s.app.domain.update(as(ALICE), info, { slug: "watched" }, post("watched", "published", { title: "New" }));
    await s.app.domain.create(as(ALICE), info, post("elsewhere"));
    await s.app.domain.delete(as(ALICE), info, { slug: "watched" });
    expect(received(s.transport, "watch")).toEqual([
      { Post: { slug: "watched", title: "Title of watched", author: null } },
      { Post: { slug: "watched", title: "New", author: null } },
      { Post: null },
    ]);
    expect(received(s.transport, "other")).toEqual([]);
  });

  it("keeps a user's email hidden from everyone but that user", async () => {
    const s = setup(0);
    const users = `subscription { Users { type user { uuid username email } } }`;
    await subscriber(s, "self", users, ALICE);
    await subscriber(s, "someone", users, BOB);
    await s.app.domain.create(as(ALICE), model(s.app, "User"), { username: "alice", name: "Alice" }, { email: "alice@example.com" });
    expect(received(s.transport, "self")).toEqual([{ Users: { type: "CREATED", user: { uuid: ALICE, username: "alice", email: "alice@example.com" } } }]);
    expect(received(s.transport, "someone")).toEqual([{ Users: { type: "CREATED", user: { uuid: ALICE, username: "alice", email: null } } }]);
  });

  it("shares an execution only among viewers shown the same fields: each still gets their own redaction", async () => {
    const s = setup(0, { maxConnectionsPerUser: 20 });
    const users = `subscription { Users { type user { uuid username email } } }`;
    const viewers = [
      ...Array.from({ length: 20 }, (_, i) => [`self${i}`, ALICE] as const),
      ...Array.from({ length: 20 }, (_, i) => [`bob${i}`, BOB] as const),
      ...Array.from({ length: 20 }, (_, i) => [`anon${i}`, undefined] as const),
    ];
    await Promise.all(viewers.map(([connectionId, user]) => subscriber(s, connectionId, users, user)));
    await s.app.domain.create(as(ALICE), model(s.app, "User"), { username: "alice", name: "Alice" }, { email: "alice@example.com" });
    // Alice sees her email; Bob and anonymous viewers are shown the same redacted record, one execution.
    expect(s.reports.map((r) => [r.executions, r.delivered])).toEqual([[2, 60]]);
    const own = { Users: { type: "CREATED", user: { uuid: ALICE, username: "alice", email: "alice@example.com" } } };
    const redacted = { Users: { type: "CREATED", user: { uuid: ALICE, username: "alice", email: null } } };
    for (const [connectionId, user] of viewers) expect(received(s.transport, connectionId)).toEqual([user === ALICE ? own : redacted]);
  });

  it("executes per user when the selection reads more than the record (a relation reads as its caller)", async () => {
    const s = setup(0);
    const withAuthor = `subscription { Posts { type post { slug author { uuid username } } } }`;
    await subscriber(s, "alice", withAuthor, ALICE);
    await subscriber(s, "bob", withAuthor, BOB);
    await subscriber(s, "anon", withAuthor);
    await s.app.domain.create(as(ALICE), model(s.app, "Post"), post("related"));
    expect(s.reports.map((r) => [r.executions, r.delivered])).toEqual([[3, 3]]);
  });

  it("keeps a bounded number of parsed filters however many distinct ones clients send, and still applies each", async () => {
    const s = setup(0, { maxSubscriptionsPerConnection: 25 });
    const count = PARSED_FILTERS_KEPT + 50;
    // Distinct filter texts; only the first 10 match the post delivered below (viewCount 0).
    await Promise.all(
      Array.from({ length: count / 25 }, (_, c) => c).map(async (c) => {
        const query = (n: number) => `subscription { Posts(query: "viewCount ${n < 10 ? "<=" : ">="} ${n < 10 ? n : n + 1}") { key } }`;
        await subscriber(s, `f${c}`, query(c * 25), undefined, "s0");
        for (let k = 1; k < 25; k++) {
          const body = JSON.stringify({ id: `s${k}`, type: MessageType.Subscribe, payload: { query: query(c * 25 + k) } });
          await s.realtime.protocol.message({ connectionId: `f${c}`, endpoint: ENDPOINT, body, receivedAt: Date.now(), requestId: `f${c}-${k}` });
        }
      }),
    );
    expect(await s.realtime.store.subscriptionsFor(["Post"])).toHaveLength(count);
    const report = await s.realtime.fanout.deliver({
      name: "Post.Created",
      model: "Post",
      kind: "Created",
      key: { slug: "vc" },
      record: { ...post("vc"), viewCount: 0, author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 },
    });
    expect(report.delivered).toBe(10);
    expect((s.realtime.fanout as unknown as { filters: Map<string, unknown> }).filters.size).toBe(PARSED_FILTERS_KEPT);
  });

  it("cannot be used to probe hidden fields through the filter", async () => {
    const s = setup(0);
    await subscriber(s, "probe", `subscription { Users(query: "email = 'alice@example.com'") { type } }`, BOB);
    await s.app.domain.create(as(ALICE), model(s.app, "User"), { username: "alice", name: "Alice" }, { email: "alice@example.com" });
    expect(received(s.transport, "probe")).toEqual([]);
  });

  it("posts to the first page of subscriptions while reading the next, each subscriber once, one execution for all pages", async () => {
    // Concurrency 2: the first page read is at most 4 rows, so 15 subscribers take several pages.
    const s = setup(0, { concurrency: 2 }, await dynamoRepositories());
    const run = `${process.pid}-${Date.now()}`;
    const watched = `subscription { Post(slug: "paged-${run}") { slug title } }`;
    const ids = Array.from({ length: 15 }, (_, i) => `paged${i}-${run}`);
    for (const id of ids) await subscriber(s, id, watched);
    await s.app.domain.create(as(ALICE), model(s.app, "Post"), post(`paged-${run}`));
    // Other files share the tables and run beside this one: a subscription of theirs to every Post
    // may be read too, each with an execution of its own at most. Ours, all 15, share one.
    const report = s.reports.at(-1);
    expect(report).toMatchObject({ failed: 0 });
    expect(report?.subscriptions).toBeGreaterThanOrEqual(15);
    expect(report?.delivered).toBe(report?.subscriptions);
    expect(report?.executions).toBeLessThanOrEqual((report?.subscriptions ?? 0) - 14);
    for (const id of ids) expect(received(s.transport, id)).toEqual([{ Post: { slug: `paged-${run}`, title: `Title of paged-${run}` } }]);
    await Promise.all(ids.map((id) => s.realtime.protocol.disconnect(id)));
  });

  it("finds subscriptions through the topic index of DynamoDB Local", async () => {
    const s = setup(0, {}, await dynamoRepositories());
    const run = `${process.pid}-${Date.now()}`;
    await subscriber(s, `list-${run}`, PUBLISHED);
    await subscriber(s, `one-${run}`, `subscription { Post(slug: "ddb-${run}") { slug } }`);
    await s.app.domain.create(as(ALICE), model(s.app, "Post"), post(`ddb-${run}`));
    expect(received(s.transport, `list-${run}`)).toHaveLength(1);
    expect(received(s.transport, `one-${run}`)).toEqual([{ Post: { slug: `ddb-${run}` } }]);
    await s.realtime.protocol.disconnect(`list-${run}`);
    await s.realtime.protocol.disconnect(`one-${run}`);
  });
});
