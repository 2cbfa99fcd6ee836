import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { COSTLY_FILTER_STEPS } from "../../lib/realtime/fanout.ts";
import { evaluationCost, parseFilter, type Expression } from "../../lib/query/index.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { ENDPOINT, FakeTransport, memoryRepositories, realtimeFor } from "./support.ts";

/**
 * Stream isolation (issue 27): five costly LIKE filters on one anonymous socket held the stream step
 * for every subscriber. A costly filter is now matched after every other subscription of the event
 * has its frame queued, so it delays only itself. On the old code the costly subscriber, subscribed
 * first, is matched and posted first.
 */
describe("a costly subscription filter", () => {
  it("is matched after the cheap ones: every other subscriber's frame leaves first", async () => {
    const app = blog();
    const transport = new FakeTransport();
    const realtime = realtimeFor(app, transport, memoryRepositories());
    app.events.on("*", async (event) => {
      await realtime.fanout.deliver(event);
    });
    const open = async (connectionId: string, query: string) => {
      await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt: Date.now(), headers: { "sec-websocket-protocol": "graphql-transport-ws" }, cookies: [] });
      const frame = (message: unknown) => realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify(message), receivedAt: Date.now(), requestId: connectionId });
      await frame({ type: MessageType.ConnectionInit });
      await frame({ id: "s", type: MessageType.Subscribe, payload: { query } });
    };
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
    expect(transport.messages("costly").filter((m) => m.type === MessageType.Next)).toEqual([{ id: "s", type: MessageType.Next, payload: { data: { Posts: { type: "CREATED", key: { slug: "long" } } } } }]);
  });
});
