import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { connectionAuthenticator } from "../../lib/realtime/auth.ts";
import { streamHandler } from "../../lib/realtime/handler.ts";
import type { Repository } from "../../lib/store/repository.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { FakeTransport, memoryRepositories, realtimeFor, subscribeOver } from "../realtime/support.ts";

const PREFIX = "blog-local-";
const users = connectionAuthenticator({ env: { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" } });

/** A stream record as AWS delivers it: the table's stream ARN, a sequence number, the new image. */
function inserted(slug: string, sequence: number): DynamoDBRecord {
  const item = { ...post(slug), author: ALICE, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", __version: 1 };
  return {
    eventName: "INSERT",
    eventSourceARN: `arn:aws:dynamodb:us-east-1:123456789012:table/${PREFIX}Post/stream/2026-01-01T00:00:00.000`,
    dynamodb: { SequenceNumber: String(sequence).padStart(21, "0"), Keys: marshall({ slug }) as never, NewImage: marshall(item) as never },
  };
}

/**
 * Fault injection on the subscriptions table: `failures` calls to findByField throw (as a
 * throttled or unreachable DynamoDB would once the SDK's own retries are spent), then it recovers.
 */
function flaky(repository: Repository): Repository & { failNext(count: number): void } {
  let failures = 0;
  return Object.assign(Object.create(repository) as Repository, {
    failNext(count: number) {
      failures = count;
    },
    findByField(field: string, values: never[]) {
      if (field === "topic" && failures > 0) {
        failures--;
        return Promise.reject(Object.assign(new Error("Throughput exceeds the current capacity"), { name: "ProvisionedThroughputExceededException" }));
      }
      return repository.findByField(field, values);
    },
  });
}

async function setup() {
  const app = blog();
  const transport = new FakeTransport();
  const repositories = memoryRepositories();
  const failing = flaky(repositories.subscriptions);
  const realtime = realtimeFor(app, transport, { ...repositories, subscriptions: failing }, {}, users);
  for (const connectionId of ["a", "b"]) await subscribeOver(realtime, connectionId, "subscription { Posts { type key } }", { user: ALICE });
  const handler = streamHandler(
    app,
    async () => realtime,
    () => PREFIX,
  );
  const slugsAt = (connectionId: string) =>
    transport
      .messages(connectionId)
      .filter((m) => m.type === MessageType.Next)
      .map((m) => (m.payload as { data: { Posts: { key: { slug: string } } } }).data.Posts.key.slug);
  return { handler, failing, slugsAt, realtime, app };
}

/** What Lambda does with a partial batch response: retry from the reported record on. */
function retryFrom(event: DynamoDBStreamEvent, failed: string): DynamoDBStreamEvent {
  return { Records: event.Records.slice(event.Records.findIndex((r) => r.dynamodb?.SequenceNumber === failed)) };
}

describe("a stream batch that fails part-way", () => {
  const slugs = ["s0", "s1", "s2", "s3", "s4", "s5"];
  const batch: DynamoDBStreamEvent = { Records: slugs.map((slug, i) => inserted(slug, 100 + i)) };

  it("reports the first failed record, and the retry delivers each event once to each subscription", async () => {
    const { handler, failing, slugsAt } = await setup();
    // Records s0 and s1 go through; reading s2's subscriptions fails twice, then recovers.
    let calls = 0;
    const original = failing.findByField.bind(failing);
    failing.findByField = (field, values) => (field === "topic" && ++calls === 3 ? (failing.failNext(2), original(field, values)) : original(field, values));
    const first = await handler(batch);
    expect(first).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[2]?.dynamodb?.SequenceNumber }] });
    expect(slugsAt("a")).toEqual(["s0", "s1"]);

    const second = await handler(retryFrom(batch, first.batchItemFailures[0]?.itemIdentifier ?? ""));
    expect(second.batchItemFailures).toHaveLength(1);
    const third = await handler(retryFrom(batch, second.batchItemFailures[0]?.itemIdentifier ?? ""));
    expect(third).toEqual({ batchItemFailures: [] });

    // Neither lost nor doubled, in stream order, for every subscription.
    expect(slugsAt("a")).toEqual(slugs);
    expect(slugsAt("b")).toEqual(slugs);
  });

  it("under npm start (whose stream plugin ignores batchItemFailures), fails the whole batch so that the plugin retries it", async () => {
    const { failing, slugsAt, realtime, app } = await setup();
    const offline = streamHandler(
      app,
      async () => realtime,
      () => PREFIX,
      { failWholeBatch: true },
    );
    failing.failNext(1);
    await expect(offline(batch)).rejects.toThrow(/not delivered: the batch is retried/);
    expect(slugsAt("a")).toEqual([]);
    expect(await offline(batch)).toEqual({ batchItemFailures: [] });
    expect(slugsAt("a")).toEqual(slugs);
  });

  it("keeps reporting the record while the failure lasts (Lambda then sends the batch to the failure queue)", async () => {
    const { handler, failing, slugsAt } = await setup();
    failing.failNext(Number.POSITIVE_INFINITY);
    for (let attempt = 0; attempt < 6; attempt++) {
      expect(await handler(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]?.dynamodb?.SequenceNumber }] });
    }
    expect(slugsAt("a")).toEqual([]);
  });
});
