import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { COSTLY_FILTER_STEPS, MAX_FILTER_STEPS_PER_EVENT } from "../../lib/realtime/fanout.ts";
import { evaluationCost, parseFilter, type Expression } from "../../lib/query/index.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { FakeTransport, memoryRepositories, realtimeFor, subscribeOver } from "./support.ts";

/** The blog with its realtime face on memory stores, events fanned out, and a way to subscribe. */
function subscribedBlog() {
  const app = blog();
  const transport = new FakeTransport();
  const realtime = realtimeFor(app, transport, memoryRepositories());
  app.events.on("*", async (event) => {
    await realtime.fanout.deliver(event);
  });
  const open = (connectionId: string, query: string) => subscribeOver(realtime, connectionId, query);
  return { app, transport, realtime, open };
}

/**
 * Stream isolation: five costly LIKE filters on one anonymous socket held the stream step
 * for every subscriber. A costly filter is now matched after every other subscription of the event
 * has its frame queued, so it delays only itself. On the old code the costly subscriber, subscribed
 * first, is matched and posted first.
 */
describe("a costly subscription filter", () => {
  it("is matched after the cheap ones: every other subscriber's frame leaves first", async () => {
    const { app, transport, open } = subscribedBlog();
    const pattern = `%${"a".repeat(400)}_b`;
    const content = `${"a".repeat(90_000)}xb`;
    expect(evaluationCost(parseFilter(`content LIKE '${pattern}'`) as Expression, { content })).toBeGreaterThan(COSTLY_FILTER_STEPS);
    await open("costly", `subscription { Posts(query: "content LIKE '${pattern}'") { type key } }`);
    for (let i = 0; i < 5; i++) await open(`cheap-${i}`, `subscription { Posts(query: "status = 'published'") { type key } }`);
    // The order in which the event's frames are posted (the acks came before).
    const order: string[] = [];
    const post_ = transport.post.bind(transport);
    transport.post = async (target, data, signal) => {
      order.push(target.connectionId);
      return post_(target, data, signal);
    };
    await app.domain.create(as(ALICE), model(app, "Post"), post("long", "published", { content }));
    expect(order).toHaveLength(6);
    expect(order.at(-1)).toBe("costly");
    // The costly one still gets its event.
    expect(transport.messages("costly").filter((m) => m.type === MessageType.Next)).toEqual([
      { id: "s", type: MessageType.Next, payload: { data: { Posts: { type: "CREATED", key: { slug: "long" } } } } },
    ]);
  });
});

/**
 * The per-event matching budget: a filter whose matching would cost more than
 * MAX_FILTER_STEPS_PER_EVENT on an event's record is not run; its subscriber gets that event as a
 * FILTER_TOO_COSTLY error (only if it may read the record), keeps its subscription, and the others
 * get their events. On the old code the costly filter was matched (about 1.2 million steps) and its
 * subscriber got the CREATED event instead of the error.
 */
describe("the per-event matching budget", () => {
  it("answers an over-budget filter with FILTER_TOO_COSTLY for that event only, others unaffected", async () => {
    const { app, transport, open } = subscribedBlog();
    // Eleven wildcards over 100,000 characters: about 1.2 million steps.
    const pattern = `%${"a%".repeat(10)}`;
    const content = "a".repeat(100_000);
    expect(evaluationCost(parseFilter(`content LIKE '${pattern}'`) as Expression, { content })).toBeGreaterThan(MAX_FILTER_STEPS_PER_EVENT);
    await open("costly", `subscription { Posts(query: "content LIKE '${pattern}'") { type key } }`);
    for (let i = 0; i < 3; i++) await open(`cheap-${i}`, `subscription { Posts(query: "status = 'published'") { type key } }`);
    const nexts = (connectionId: string) => transport.messages(connectionId).filter((m) => m.type === MessageType.Next);
    const Post = model(app, "Post");

    await app.domain.create(as(ALICE), Post, post("long", "published", { content }));
    expect(nexts("costly")).toEqual([
      { id: "s", type: MessageType.Next, payload: { data: null, errors: [expect.objectContaining({ extensions: { code: "FILTER_TOO_COSTLY" } })] } },
    ]);
    for (let i = 0; i < 3; i++)
      expect(nexts(`cheap-${i}`)).toEqual([{ id: "s", type: MessageType.Next, payload: { data: { Posts: { type: "CREATED", key: { slug: "long" } } } } }]);

    // A draft the anonymous subscriber may not read: not even the error tells of it.
    await app.domain.create(as(ALICE), Post, post("hidden", "draft", { content }));
    expect(nexts("costly")).toHaveLength(1);

    // The subscription stays: a record within the budget is matched and delivered as usual.
    await app.domain.create(as(ALICE), Post, post("short", "published", { content: "a".repeat(20) }));
    expect(nexts("costly").at(-1)).toEqual({ id: "s", type: MessageType.Next, payload: { data: { Posts: { type: "CREATED", key: { slug: "short" } } } } });
    expect(transport.messages("costly").filter((m) => m.type === MessageType.Error || m.type === MessageType.Complete)).toEqual([]);
  });
});
