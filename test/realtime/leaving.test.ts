import type { DynamoDBRecord } from "aws-lambda";
import { marshall } from "@aws-sdk/util-dynamodb";
import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { LEFT_TYPE } from "../../lib/realtime/fanout.ts";
import { lifecycleEventsOf } from "../../lib/realtime/stream-events.ts";
import type { Item } from "../../lib/store/repository.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { FakeTransport, memoryRepositories, realtimeFor, subscribeOver } from "./support.ts";

/**
 * Leaving a filter is an event: a post going from published to draft reached neither
 * anonymous `Posts(query: "status = 'published'")` nor `Post(slug)` subscribers, who kept showing
 * it. Events come from the table's stream (old and new images), as in AWS and offline. On the old
 * code neither subscriber receives anything here.
 */
const PREFIX = "blog-local-";

function modify(oldImage: Item, newImage: Item): DynamoDBRecord {
  return {
    eventName: "MODIFY",
    eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${PREFIX}Post/stream/2026-01-01T00:00:00.000`,
    dynamodb: { OldImage: marshall(oldImage) as never, NewImage: marshall(newImage) as never },
  };
}

describe("a record leaving a subscriber's sight", () => {
  it("gets one LEFT event (list) or null (record), then nothing while it stays out", async () => {
    const app = blog();
    const transport = new FakeTransport();
    const realtime = realtimeFor(app, transport, memoryRepositories());
    const Post = model(app, "Post");
    await app.domain.create(as(ALICE), Post, post("leaving", "published"));
    const open = (connectionId: string, query: string) => subscribeOver(realtime, connectionId, query);
    await open("list", `subscription { Posts(query: "status = 'published'") { type key post { slug status } } }`);
    await open("record", `subscription { Post(slug: "leaving") { slug status } }`);
    const data = (connectionId: string) =>
      transport
        .messages(connectionId)
        .filter((m) => m.type === MessageType.Next)
        .map((m) => (m.payload as { data: unknown }).data);
    const repository = app.repository(Post);
    const published = (await repository.get({ slug: "leaving" })) as Item;

    // Published -> published: an ordinary update for both.
    const retitled = await repository.patch({ slug: "leaving" }, { title: "New title" }, []);
    for (const event of lifecycleEventsOf(app, PREFIX, [modify(published, retitled)])) await realtime.fanout.deliver(event);
    expect(data("list")).toEqual([{ Posts: { type: "UPDATED", key: { slug: "leaving" }, post: { slug: "leaving", status: "published" } } }]);
    expect(data("record")).toEqual([{ Post: { slug: "leaving", status: "published" } }]);

    // Published -> draft: it leaves the filter, and anonymous callers may not read drafts.
    const drafted = await repository.patch({ slug: "leaving" }, { status: "draft" }, []);
    for (const event of lifecycleEventsOf(app, PREFIX, [modify(retitled, drafted)])) await realtime.fanout.deliver(event);
    expect(data("list").at(-1)).toEqual({ Posts: { type: LEFT_TYPE, key: { slug: "leaving" }, post: null } });
    expect(data("record").at(-1)).toEqual({ Post: null });

    // Draft -> draft: nothing more.
    const edited = await repository.patch({ slug: "leaving" }, { title: "Still a draft" }, []);
    for (const event of lifecycleEventsOf(app, PREFIX, [modify(drafted, edited)])) await realtime.fanout.deliver(event);
    expect(data("list")).toHaveLength(2);
    expect(data("record")).toHaveLength(2);
  });
});
