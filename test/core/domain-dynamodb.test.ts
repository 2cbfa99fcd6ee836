import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Model, type Action, type Decision } from "../../lib/core/model.ts";
import { Type } from "../../lib/core/schema.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinitions, tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { createdOrder, seedPosts } from "../support/dated-posts.ts";
import { createModelTables } from "../support/model-tables.ts";
import { inProcess } from "../support/parts.ts";

const unique = () => randomUUID().slice(0, 8);

describe("the blog on DynamoDB Local", () => {
  it("creates, reads, patches and deletes a post, guarded by version", async () => {
    const app = blog(dynamoStore());
    const Post = model(app, "Post");
    const slug = `post-${unique()}`;
    const created = await app.domain.create(as(ALICE), Post, post(slug));
    await expect(app.domain.create(as(ALICE), Post, post(slug))).rejects.toMatchObject({ status: 409 });
    await expect(app.domain.patch(as(ALICE), Post, { slug }, { title: "x" }, { expectedVersion: created.version + 1 })).rejects.toMatchObject({ status: 412 });
    const patched = await app.domain.patch(as(ALICE), Post, { slug }, { title: "x" }, { expectedVersion: created.version });
    expect(patched.data.title).toBe("x");
    await app.domain.delete(as(ALICE), Post, { slug });
    await expect(app.domain.get(as(ALICE), Post, { slug })).rejects.toMatchObject({ status: 404 });
  });
});

/** A second application, unrelated to the blog, so nothing relies on the sample's shapes. */
class Gadget extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["sku"] as const;
  static override readonly schema = Type.Object({
    sku: Type.String(),
    spec: Type.Object({ weight: Type.Number(), notes: Type.Optional(Type.Array(Type.Object({ text: Type.String() }))) }),
  });
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

/** Fifty independent optional fields, to patch concurrently. */
class Wide extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String(),
    ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, Type.Optional(Type.Integer())])),
  });
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

async function synthetic(): Promise<Application> {
  const prefix = `synthetic-${unique()}-`;
  const app = new Application({ name: "synthetic", version: "0", models: [Gadget, Wide], serviceTypes: [], services: {} }, inProcess).useStore(
    dynamoStore(prefix),
  );
  const client = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION });
  await ensureTables(client, tableDefinitions(app, prefix));
  client.destroy();
  return app;
}

describe("a synthetic application on DynamoDB Local", () => {
  it("keeps every one of 50 concurrent patches of distinct fields made through the domain", async () => {
    const app = await synthetic();
    const info = app.model("Wide");
    if (!info) throw new Error("missing model");
    const { data } = await app.domain.create(as(), info, {});
    const uuid = String(data.uuid);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => app.domain.patch(as(), info, { uuid }, { [`f${i}`]: i })));
    expect(new Set(results.map((r) => r.version)).size).toBe(50);
    const final = await app.domain.get(as(), info, { uuid });
    for (let i = 0; i < 50; i++) expect(final.data[`f${i}`]).toBe(i);
    expect(final.version).toBe(51);
  });

  it("strips __ keys at every depth of nested input", async () => {
    const app = await synthetic();
    const Gadget_ = app.model("Gadget");
    if (!Gadget_) throw new Error("missing model");
    await app.domain.create(as(), Gadget_, {
      sku: "g1",
      __owner: "me",
      spec: { weight: 2, __cost: 10, notes: [{ text: "ok", __hidden: true }] },
    });
    const stored = await app.repository(Gadget_).get({ sku: "g1" });
    expect(stored).toMatchObject({ sku: "g1", spec: { weight: 2, notes: [{ text: "ok" }] } });
    expect(JSON.stringify(stored)).not.toMatch(/__owner|__cost|__hidden/);
  });
});

describe("limits DynamoDB imposes, as client errors", () => {
  it("refuses numbers beyond 2^53 and records over 400 KB with a 400, writing nothing", async () => {
    const app = blog(dynamoStore());
    const Post = model(app, "Post");
    const slug = `big-${unique()}`;
    await expect(app.domain.create(as(ALICE), Post, post(slug, "published", { viewCount: 2 ** 60 }))).rejects.toMatchObject({
      status: 400,
      errors: [{ path: "/viewCount", message: "must be a finite number within +/-2^53" }],
    });
    await expect(app.domain.get(as(ALICE), Post, { slug })).rejects.toMatchObject({ status: 404 });

    const gadgets = await synthetic();
    const Gadget_ = gadgets.model("Gadget");
    if (!Gadget_) throw new Error("missing model");
    const notes = Array.from({ length: 500 }, () => ({ text: "x".repeat(1000) }));
    await expect(gadgets.domain.create(as(), Gadget_, { sku: "huge", spec: { weight: 1, notes } })).rejects.toMatchObject({
      status: 400,
      message: "Record too large",
    });
    await expect(gadgets.domain.get(as(), Gadget_, { sku: "huge" })).rejects.toMatchObject({ status: 404 });
  });
});

describe("ORDER BY on DynamoDB Local", () => {
  it("serves status = 'published' ORDER BY createdAt DESC from the by_status index, newest first", async () => {
    const prefix = `order-${unique()}-`;
    const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
    const queries: { IndexName?: string; ScanIndexForward?: boolean }[] = [];
    documents.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === "QueryCommand") queries.push(args.input as { IndexName?: string; ScanIndexForward?: boolean });
        return next(args);
      },
      { step: "initialize", name: "recordQueries" },
    );
    const app = blog((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
    await createModelTables(app, prefix);
    const Post = await seedPosts(app);
    queries.length = 0;
    const { results } = await app.domain.query(as(), Post, { q: "status = 'published' ORDER BY createdAt DESC", limit: 5 });
    expect(results.map((r) => r.slug)).toEqual(createdOrder("published").reverse().slice(0, 5));
    expect(queries.length).toBeGreaterThan(0);
    for (const input of queries) expect(input).toMatchObject({ IndexName: "by_status", ScanIndexForward: false });
    documents.destroy();
  });
});
