import { GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { keyedReferences } from "../../lib/realtime/pack-references.ts";
import { deliverStreamEvent } from "../../lib/realtime/stream-dispatch.ts";
import { ENDPOINT, subscribeOver } from "./support.ts";
import { ATTACKER, created, DOCUMENTS, errors, nexts, packed, packItems, PACKS, PUBLISHED, VICTIM } from "./pack-support.ts";

/**
 * Subscription documents under attack (issue 54): references that collide (the reference function
 * injected: against the keyed one no one can find a collision), and what an earlier version wrote.
 */
describe("subscription document references", () => {
  it("are keyed by the application secret and carry 128 bits", () => {
    const a = keyedReferences(() => "secret-a");
    const b = keyedReferences(() => "secret-b");
    const document = '{"query":"subscription { Posts { type } }"}';
    expect(a("Post", document)).toBe(a("Post", document));
    expect(a("Post", document)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(a("Post", document), "base64url")).toHaveLength(16);
    expect(a("Post", document)).not.toBe(b("Post", document));
    expect(a("Post", document)).not.toBe(a('Post#["p1"]', document));
    expect(a("Post", document)).not.toBe(a("Post", `${document} `));
  });

  it("serve each subscriber its own document when references collide, on the warm instance and on a cold one", async () => {
    // Every document gets the same reference: the collision the keyed reference makes infeasible.
    const s = await packed(() => "collides");
    await subscribeOver(s.realtime, "Aattacker", ATTACKER);
    await subscribeOver(s.realtime, "Bvictim", VICTIM);
    expect(errors(s.transport, "Bvictim")).toEqual([]);
    // The second document took the next reference; neither replaced the other.
    const documents = await s.client.send(
      new QueryCommand({ TableName: s.table, KeyConditionExpression: "connectionId = :p", ExpressionAttributeValues: { ":p": DOCUMENTS } }),
    );
    expect((documents.Items ?? []).map((item) => item.id).sort()).toEqual(["collides", "collides.1"]);
    await deliverStreamEvent(s.realtime, created("p1"), "000100");
    expect(nexts(s.transport, "Aattacker")).toHaveLength(1);
    // The victim's filter matches nothing: run as its own document, it is sent nothing at all.
    expect(nexts(s.transport, "Bvictim")).toEqual([]);
    // A cold instance reads both documents from the table: the same answer.
    await deliverStreamEvent(s.other(), created("p2"), "000200");
    expect(nexts(s.transport, "Aattacker")).toHaveLength(2);
    expect(nexts(s.transport, "Bvictim")).toEqual([]);
    // Subscribed in the other order on a fresh instance, the victim still gets only its own.
    const again = s.other();
    await subscribeOver(again, "Cvictim", VICTIM);
    await subscribeOver(again, "Dattacker", ATTACKER);
    await deliverStreamEvent(again, created("p3"), "000300");
    expect(nexts(s.transport, "Cvictim")).toEqual([]);
    expect(nexts(s.transport, "Dattacker")).toEqual([
      {
        id: "s",
        payload: { data: { Posts: { type: "CREATED", key: { slug: "p3" }, post: { slug: "p3", title: "secret title", content: "secret content" } } } },
      },
    ]);
  });

  it("refuse a document every reference of which names another, and never serve it another's", async () => {
    const s = await packed(() => "full");
    const queries = [0, 1, 2, 3, 4].map((i) => `subscription { Posts(query: "title = 't${i}'") { type key } }`);
    for (const [i, query] of queries.slice(0, 4).entries()) await subscribeOver(s.realtime, `Aconn${i}`, query);
    const before = (await s.realtime.store.markers?.read(["Post"]))?.get("Post")?.count;
    expect(before).toBe(4);
    const row = {
      connectionId: "Afifth",
      id: "s",
      topic: "Post",
      model: "Post",
      field: "Posts",
      kind: "list" as const,
      query: queries[4] ?? "",
      filter: "title = 't4'",
      endpoint: ENDPOINT,
      group: "g",
      expiresAt: Math.ceil(Date.now() / 1000) + 3600,
    };
    await expect(s.realtime.store.addSubscription(row)).rejects.toThrow(/names another document/);
    // Nothing kept: no row, no count, no entry.
    expect(await s.realtime.store.hasSubscription("Afifth", "s")).toBe(false);
    expect((await s.realtime.store.markers?.read(["Post"]))?.get("Post")?.count).toBe(4);
    expect((await packItems(s)).some((item) => Object.keys(item).some((name) => name.startsWith("Afifth ")))).toBe(false);
  });

  it("still read the packs an earlier version wrote (48-bit references, one item per bucket) and empty them", async () => {
    const s = await packed();
    // As the previous version left them: an entry in the bucket's item named by the bucket alone,
    // its document under an 8-character reference, its row without a place.
    const document = JSON.stringify({ endpoint: ENDPOINT, field: "Posts", filter: "status = 'published'", kind: "list", model: "Post", query: PUBLISHED });
    const expiresAt = Math.ceil(Date.now() / 1000) + 3600;
    await subscribeOver(s.realtime, "Alegacy", PUBLISHED);
    const row = (await s.client.send(new GetCommand({ TableName: s.table, Key: { connectionId: "Alegacy", id: "s" } }))).Item ?? {};
    await s.realtime.store.packs?.remove("Post", "Alegacy", "s", { item: String(row.packItem), bytes: Number(row.packBytes) });
    const { packItem: _item, packBytes: _bytes, ...legacyRow } = row;
    await s.client.send(new PutCommand({ TableName: s.table, Item: legacyRow }));
    await s.client.send(new PutCommand({ TableName: s.table, Item: { connectionId: DOCUMENTS, id: "Old48bit", document, expiresAt: expiresAt + 86400 } }));
    await s.client.send(new PutCommand({ TableName: s.table, Item: { connectionId: PACKS, id: "A", "Alegacy s": "Old48bit" } }));
    // A new subscriber of the same bucket is written beside it, never into the earlier item.
    await subscribeOver(s.realtime, "Anew", PUBLISHED);
    const items = await packItems(s);
    expect(Object.keys(items.find((item) => item.id === "A") ?? {}).filter((name) => name.includes(" "))).toEqual(["Alegacy s"]);
    await deliverStreamEvent(s.other(), created("p4"), "000400");
    expect(nexts(s.transport, "Alegacy")).toHaveLength(1);
    expect(nexts(s.transport, "Anew")).toHaveLength(1);
    // Its complete finds the entry where the earlier version put it.
    await s.realtime.protocol.message({
      connectionId: "Alegacy",
      endpoint: ENDPOINT,
      body: JSON.stringify({ id: "s", type: MessageType.Complete }),
      receivedAt: Date.now(),
      requestId: "c",
    });
    expect(Object.keys((await packItems(s)).find((item) => item.id === "A") ?? {}).filter((name) => name.includes(" "))).toEqual([]);
    await deliverStreamEvent(s.other(), created("p5"), "000500");
    expect(nexts(s.transport, "Alegacy")).toHaveLength(1);
    expect(nexts(s.transport, "Anew")).toHaveLength(2);
  });

  it("leave no entry behind when a complete lands between a subscribe's entry and the row noting it", async () => {
    const s = await packed();
    let raced = false;
    s.client.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const input = args.input as { Key?: { connectionId?: unknown }; UpdateExpression?: unknown; ExpressionAttributeNames?: Record<string, string> };
        const entry = input.ExpressionAttributeNames?.["#e"] ?? "";
        if (!raced && input.Key?.connectionId === PACKS && String(input.UpdateExpression).startsWith("SET") && entry.startsWith("Arace ")) {
          // API Gateway ran the client's complete of the same id concurrently: it lands now.
          raced = true;
          await s.realtime.protocol.message({
            connectionId: "Arace",
            endpoint: ENDPOINT,
            body: JSON.stringify({ id: "s", type: MessageType.Complete }),
            receivedAt: Date.now(),
            requestId: "race",
          });
        }
        return result;
      },
      { step: "initialize", name: "completeMidSubscribe" },
    );
    await subscribeOver(s.realtime, "Arace", PUBLISHED);
    expect(raced).toBe(true);
    expect(errors(s.transport, "Arace")).toEqual([]);
    // The entry is gone, the topic counts it out once, the connection's place is free again.
    expect((await packItems(s)).flatMap((item) => Object.keys(item)).filter((name) => name.startsWith("Arace "))).toEqual([]);
    expect((await s.realtime.store.markers?.read(["Post"]))?.get("Post")?.count).toBe(0);
    expect((await s.realtime.store.getConnection("Arace"))?.places).toBe(0);
    await deliverStreamEvent(s.realtime, created("p9"), "000900");
    expect(nexts(s.transport, "Arace")).toEqual([]);
  });
});
