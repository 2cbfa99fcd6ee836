import { MessageType } from "graphql-ws";
import { MAX_SUBSCRIPTION_ID_BYTES } from "../../lib/realtime/protocol.ts";
import { describe, expect, it } from "vitest";
import { keyedReferences } from "../../lib/realtime/pack-references.ts";
import { dynamoPackTable } from "../../lib/realtime/pack-table.ts";
import { deliverStreamEvent } from "../../lib/realtime/stream-dispatch.ts";
import { MAX_ENTRY_BYTES, PackFullError, SLOT_BYTES, TopicPacks } from "../../lib/realtime/topic-packs.ts";
import { ENDPOINT, subscribeOver } from "./support.ts";
import { created, errors, itemBytes, nexts, packed, packItems, PUBLISHED } from "./pack-support.ts";

/**
 * Pack buckets under attack (issue 54): subscription ids as long as the row's key allows, every
 * connection in one bucket, sent at once. DynamoDB Local through the real SDK.
 */
describe("pack buckets", () => {
  it("never take an item near 400 KB: subscribers racing with 1 KB entries fill items to their cap, and a newcomer still subscribes", async () => {
    const s = await packed();
    // The attack: sockets of 25 subscriptions with 1,024-byte ids, every connection in one
    // bucket ("Q"), all sent at once (its 24 sockets reached 382 KB in one item). The protocol now
    // refuses ids over MAX_SUBSCRIPTION_ID_BYTES, so the same entry sizes come here from ids at
    // that limit and connection ids that make up the rest: a pack must hold whatever makes an
    // entry long. About 210 KB here, over three items' cap.
    const connections = Array.from({ length: 8 }, (_, i) => `Qflood${i}-`.padEnd(1024 - MAX_SUBSCRIPTION_ID_BYTES, "y"));
    const id = (c: number, n: number) => `${c}-${n}-`.padEnd(MAX_SUBSCRIPTION_ID_BYTES, "x");
    await Promise.all(
      connections.map(async (connectionId, c) => {
        await subscribeOver(s.realtime, connectionId, PUBLISHED, { id: id(c, 0) });
        await Promise.all(
          Array.from({ length: 24 }, (_, n) =>
            s.realtime.protocol.message({
              connectionId,
              endpoint: ENDPOINT,
              body: JSON.stringify({ id: id(c, n + 1), type: MessageType.Subscribe, payload: { query: PUBLISHED } }),
              receivedAt: Date.now(),
              requestId: `${c}-${n}`,
            }),
          ),
        );
      }),
    );
    for (const connectionId of connections) expect(errors(s.transport, connectionId)).toEqual([]);
    const items = (await packItems(s)).filter((item) => String(item.id).startsWith("Q"));
    const entries = items.flatMap((item) => Object.entries(item).filter(([name]) => name.includes(" ")));
    expect(entries).toHaveLength(200);
    for (const item of items) {
      // Each item's count is exactly its entries' bytes (the races lost none), within the cap,
      // and the item itself far from DynamoDB's 400 KB.
      const counted = Object.entries(item)
        .filter(([name]) => name.includes(" "))
        .reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(String(value)), 0);
      expect(item.bytes).toBe(counted);
      expect(counted).toBeLessThanOrEqual(SLOT_BYTES);
      expect(itemBytes(item)).toBeLessThan(SLOT_BYTES + 1024);
    }
    expect(items.length).toBeGreaterThan(3);
    // A newcomer landing in the full bucket subscribes, and every subscriber gets the event once.
    await subscribeOver(s.realtime, "Qnewcomer", PUBLISHED);
    expect(errors(s.transport, "Qnewcomer")).toEqual([]);
    await deliverStreamEvent(s.realtime, created("p6"), "000600");
    expect(nexts(s.transport, "Qnewcomer")).toHaveLength(1);
    for (const connectionId of connections) expect(nexts(s.transport, connectionId)).toHaveLength(25);
    // A complete counts its entry out of the item it went to, and its room is taken again.
    const before = (await packItems(s)).reduce((sum, item) => sum + (String(item.id).startsWith("Q") ? Number(item.bytes) : 0), 0);
    await s.realtime.protocol.message({
      connectionId: connections[3]!,
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: id(3, 7), type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c",
    });
    await s.realtime.protocol.disconnect(connections[4]!);
    const after = await packItems(s);
    const total = after.reduce((sum, item) => sum + (String(item.id).startsWith("Q") ? Number(item.bytes) : 0), 0);
    const names = after.flatMap((item) => Object.keys(item));
    expect(names.filter((name) => name.startsWith(`${connections[3]} `))).toHaveLength(24);
    expect(names.filter((name) => name.startsWith(`${connections[4]} `))).toHaveLength(0);
    expect(before - total).toBeGreaterThan(26 * 1024);
    expect(before - total).toBeLessThan(27 * 1034);
  }, 300_000);

  it("refuse an entry over its limit before writing anything", async () => {
    const s = await packed();
    const calls: string[] = [];
    s.client.middlewareStack.add(
      (next, context) => (args) => {
        calls.push(context.commandName ?? "");
        return next(args);
      },
      { step: "initialize", name: "countPackCalls" },
    );
    const packs = new TopicPacks(dynamoPackTable(s.client, s.table), { reference: keyedReferences(() => "k") });
    const row = {
      connectionId: "Abig",
      id: "s",
      topic: "Post",
      model: "Post",
      field: "Posts",
      kind: "list" as const,
      query: PUBLISHED,
      endpoint: ENDPOINT,
      group: "g",
      expiresAt: Math.ceil(Date.now() / 1000) + 3600,
      userId: "u".repeat(MAX_ENTRY_BYTES),
    };
    await expect(packs.add(row, 1)).rejects.toBeInstanceOf(PackFullError);
    expect(calls).toEqual([]);
  });
});
