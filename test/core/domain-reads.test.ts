import { afterEach, describe, expect, it, vi } from "vitest";
import { ALICE, BOB, as, blog, model, post, failure } from "../support/blog.ts";
import { createdOrder, seedPosts } from "../support/dated-posts.ts";

async function seed() {
  const app = blog();
  return { app, Post: await seedPosts(app) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("domain queries", () => {
  it("pages through readable records only, never short while more remain", async () => {
    const { app, Post } = await seed();
    const seen: string[] = [];
    let offset: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof app.domain.query>> = await app.domain.query(as(ALICE), Post, { q: "", limit: 4, offset });
      if (page.continuationToken) expect(page.results).toHaveLength(4);
      seen.push(...page.results.map((r) => String(r.slug)));
      offset = page.continuationToken;
    } while (offset);
    const expected = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i % 3 !== 0 || i % 2 === 1)
      .map((i) => `p${String(i).padStart(2, "0")}`);
    expect(seen.sort()).toEqual(expected);
  });

  it("filters with the query language and checks fields and values", async () => {
    const { app, Post } = await seed();
    const { results } = await app.domain.query(as(), Post, { q: "viewCount >= 20 AND slug LIKE 'p2%'" });
    expect(results.map((r) => r.slug).sort()).toEqual(["p20", "p22", "p23", "p25", "p26", "p28", "p29"]);
    expect((await failure(app.domain.query(as(), Post, { q: "nope = 1" }))).code).toBe("BAD_QUERY");
    expect((await failure(app.domain.query(as(), Post, { q: "viewCount = 'many'" }))).code).toBe("BAD_QUERY");
    expect((await failure(app.domain.query(as(), Post, { q: "title = " }))).message).toMatch(/column/);
  });

  it("orders by an indexed field DESC and refuses an order no index serves", async () => {
    const { app, Post } = await seed();
    // Every record has its own createdAt, in an order unrelated to slug or insertion order, so a
    // store that ignored the order (or sorted ascending) returns other slugs. The index itself is
    // checked on DynamoDB Local in domain-dynamodb.test.ts.
    const { results } = await app.domain.query(as(), Post, { q: "status = 'published' ORDER BY createdAt DESC", limit: 5 });
    expect(results.map((r) => r.slug)).toEqual(createdOrder("published").reverse().slice(0, 5));
    const error = await failure(app.domain.query(as(), Post, { q: "ORDER BY title" }));
    expect(error.code).toBe("BAD_QUERY");
    expect(error.message).toContain("title");
  });

  it("enforces limit bounds, from the argument and from the query", async () => {
    const { app, Post } = await seed();
    expect((await failure(app.domain.query(as(), Post, { limit: 1001 }))).status).toBe(400);
    expect((await failure(app.domain.query(as(), Post, { limit: 0 }))).status).toBe(400);
    expect((await failure(app.domain.query(as(), Post, { q: "LIMIT 5000" }))).status).toBe(400);
    expect((await app.domain.query(as(), Post, { q: "LIMIT 3" })).results).toHaveLength(3);
    expect((await app.domain.query(as(), Post, { q: "LIMIT 3", limit: 2 })).results).toHaveLength(2);
  });

  it("refuses a forged, altered or foreign continuation token", async () => {
    const { app, Post } = await seed();
    const first = await app.domain.query(as(), Post, { q: "viewCount > 1", limit: 2 });
    const token = first.continuationToken ?? "";
    expect(token).not.toBe("");
    // Opaque: neither the token nor its bytes carry the cursor's plaintext.
    expect(Buffer.from(token, "base64url").toString("latin1")).not.toContain('"slug"');
    const altered = token.slice(0, 10) + (token[10] === "A" ? "B" : "A") + token.slice(11);
    expect((await failure(app.domain.query(as(), Post, { q: "viewCount > 1", limit: 2, offset: altered }))).code).toBe("BAD_QUERY");
    expect((await failure(app.domain.query(as(), Post, { q: "viewCount > 2", limit: 2, offset: token }))).code).toBe("BAD_QUERY");
    expect((await failure(app.domain.query(as(), Post, { offset: "garbage" }))).code).toBe("BAD_QUERY");
    const second = await app.domain.query(as(), Post, { q: "viewCount > 1", limit: 2, offset: token });
    // Page 2 continues exactly where page 1 stopped: the next two readable records in key order.
    const readable = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i > 1 && i % 3 !== 0)
      .map((i) => `p${String(i).padStart(2, "0")}`);
    expect(first.results.map((r) => r.slug)).toEqual(readable.slice(0, 2));
    expect(second.results.map((r) => r.slug)).toEqual(readable.slice(2, 4));
  });
});

describe("operations", () => {
  it("runs a model operation for the author only, with validated parameters", async () => {
    const app = blog();
    const Post = model(app, "Post");
    await app.domain.create(as(ALICE), Post, post("op", "draft"));
    expect(await app.domain.invoke(as(ALICE), Post, "publish", { slug: "op" }, { destination: "linkedin" })).toBe("Post 'op' shared on linkedin");
    const bad = await failure(app.domain.invoke(as(ALICE), Post, "publish", { slug: "op" }, { destination: "myspace" }));
    expect(bad.errors[0]?.path).toBe("/destination");
    expect((await failure(app.domain.invoke(as(BOB), Post, "publish", { slug: "op" }, { destination: "twitter" }))).status).toBe(404);
    expect((await failure(app.domain.invoke(as(ALICE), Post, "nosuch", { slug: "op" }, {}))).status).toBe(404);
  });

  it("runs service operations through their own policy", async () => {
    const app = blog();
    const testbean = app.service("testbean");
    const publisher = app.service("publisher");
    if (!testbean || !publisher) throw new Error("services missing");
    expect(await app.domain.invokeService(as(), testbean, "testOperation", { counter: 255 })).toBe("ff");
    expect((await failure(app.domain.invokeService(as(), testbean, "testOperation", { counter: "x" }))).status).toBe(400);
    // publish touches no data: anonymous callers get their string too.
    expect(await app.domain.invokeService(as(), publisher, "publish", { message: "hi" })).toBe("Published: hi");
    expect(await app.domain.invokeService(as(ALICE), publisher, "publish", { message: "hi" })).toBe("Published: hi");

    // publishPost goes through the domain: signed in, and only the post's author.
    const Post = model(app, "Post");
    await app.domain.create(as(ALICE), Post, post("draft1", "draft"));
    expect((await failure(app.domain.invokeService(as(), publisher, "publishPost", { postId: "draft1" }))).status).toBe(401);
    expect((await failure(app.domain.invokeService(as(BOB), publisher, "publishPost", { postId: "draft1" }))).status).toBe(404);
    await app.domain.create(as(ALICE), Post, post("live1", "published"));
    expect((await failure(app.domain.invokeService(as(BOB), publisher, "publishPost", { postId: "live1" }))).status).toBe(403);
    expect(await app.domain.invokeService(as(ALICE), publisher, "publishPost", { postId: "draft1" })).toEqual({ postId: "draft1", status: "published" });
    expect((await app.domain.get(as(BOB), Post, { slug: "draft1" })).data.status).toBe("published");
  });
});
