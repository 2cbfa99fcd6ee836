import { describe, expect, it } from "vitest";
import type { Repository, RepositoryFactory } from "../../lib/store/repository.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { ALICE, BOB, as, blog, failure, model, post } from "../support/blog.ts";

const CAROL = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0003";

async function blogWithPosts(store?: RepositoryFactory) {
  const app = blog(store);
  const Post = model(app, "Post");
  await app.domain.create(as(ALICE), Post, post("open"));
  await app.domain.create(as(ALICE), Post, post("draft", "draft"));
  return { app, Post, Comment: model(app, "Comment"), PostTag: model(app, "PostTag"), Tag: model(app, "Tag"), User: model(app, "User") };
}

describe("writes are decided on the stored record and on the record they produce", () => {
  it("refuses handing one's comment to someone else by update or patch, and changes nothing", async () => {
    const { app, Comment } = await blogWithPosts();
    const { data } = await app.domain.create(as(BOB), Comment, { content: "mine", post: "open", author: BOB });
    const key = { uuid: data.uuid };
    expect((await failure(app.domain.patch(as(BOB), Comment, key, { author: ALICE }))).status).toBe(403);
    expect((await failure(app.domain.update(as(BOB), Comment, key, { content: "yours", post: "open", author: ALICE }))).status).toBe(403);
    expect((await app.domain.get(as(BOB), Comment, key)).data).toMatchObject({ author: BOB, content: "mine" });
    // Changing what one may change still works.
    expect((await app.domain.patch(as(BOB), Comment, key, { content: "edited" })).data).toMatchObject({ author: BOB, content: "edited" });
  });

  it("keeps owner fields taken from the current user fixed after create", async () => {
    const { app, Post } = await blogWithPosts();
    await app.domain.patch(as(ALICE), Post, { slug: "open" }, { author: BOB, title: "New" });
    await app.domain.update(as(ALICE), Post, { slug: "open" }, { ...post("open"), author: BOB });
    expect((await app.domain.get(as(), Post, { slug: "open" })).data.author).toBe(ALICE);
  });

  it("never lets a patch land on a record whose owner changed after the permission was decided", async () => {
    // Fault injection: between the domain's read and its write, another writer hands the comment to Carol.
    let repositories: Record<string, Repository> = {};
    let inject: (() => Promise<void>) | undefined;
    const store: RepositoryFactory = (name, table) => {
      const inner = memoryStore(name, table);
      const wrapped: Repository = Object.create(inner) as Repository;
      wrapped.patch = async (...args) => {
        const before = inject;
        inject = undefined;
        await before?.();
        return inner.patch(...args);
      };
      repositories = { ...repositories, [name]: inner };
      return wrapped;
    };
    const { app, Comment } = await blogWithPosts(store);
    const { data } = await app.domain.create(as(BOB), Comment, { content: "mine", post: "open", author: BOB });
    const key = { uuid: data.uuid as string };
    inject = async () => {
      await repositories.Comment?.patch(key, { author: CAROL }, []);
    };
    const error = await failure(app.domain.patch(as(BOB), Comment, key, { content: "Bob was here" }));
    expect(error.status).toBe(403);
    expect(await repositories.Comment?.get(key)).toMatchObject({ author: CAROL, content: "mine" });
  });

  it("lets concurrent patches of fields the decision did not read all land", async () => {
    const { app, Post } = await blogWithPosts();
    await Promise.all([
      app.domain.patch(as(ALICE), Post, { slug: "open" }, { title: "T2" }),
      app.domain.patch(as(ALICE), Post, { slug: "open" }, { content: "C2" }),
      app.domain.patch(as(ALICE), Post, { slug: "open" }, { viewCount: 7 }),
    ]);
    expect((await app.domain.get(as(), Post, { slug: "open" })).data).toMatchObject({ title: "T2", content: "C2", viewCount: 7 });
  });
});

describe("children take their permission from their parent, in batches", () => {
  it("hides a draft's comments and post-tags from everyone but who may read the draft", async () => {
    const { app, Comment, PostTag, Tag } = await blogWithPosts();
    const onDraft = await app.domain.create(as(ALICE), Comment, { content: "note", post: "draft", author: ALICE });
    await app.domain.create(as(ALICE), Comment, { content: "hello", post: "open", author: ALICE });
    await app.domain.create(as(ALICE), Tag, { slug: "t", name: "T", description: "", color: "#000000" });
    await app.domain.create(as(ALICE), PostTag, { post: "draft", tag: "t" });
    for (const caller of [as(), as(BOB)]) {
      expect((await app.domain.query(caller, Comment, {})).results.map((c) => c.post)).toEqual(["open"]);
      expect((await failure(app.domain.get(caller, Comment, { uuid: onDraft.data.uuid }))).status).toBe(404);
      expect((await app.domain.query(caller, PostTag, {})).results).toEqual([]);
      expect(await app.domain.loadByField(caller, PostTag, "post", ["draft"])).toEqual([]);
    }
    expect((await app.domain.query(as(ALICE), Comment, { q: "post = 'draft'" })).results).toHaveLength(1);
  });

  it("refuses a comment on a post one cannot read exactly as on a post that does not exist", async () => {
    const { app, Comment } = await blogWithPosts();
    const hidden = await failure(app.domain.create(as(BOB), Comment, { content: "x", post: "draft", author: BOB }));
    const missing = await failure(app.domain.create(as(BOB), Comment, { content: "x", post: "nope", author: BOB }));
    expect([hidden.status, hidden.message]).toEqual([missing.status, missing.message]);
    // A 400 naming the field: the write names a parent it may not use.
    expect([hidden.status, hidden.errors[0]?.path]).toEqual([400, "/post"]);
    await app.domain.create(as(BOB), Comment, { content: "x", post: "open", author: BOB });
  });

  it("lets only a post's author tag or untag it", async () => {
    const { app, PostTag, Tag } = await blogWithPosts();
    await app.domain.create(as(BOB), Tag, { slug: "t", name: "T", description: "", color: "#000000" });
    expect((await failure(app.domain.create(as(BOB), PostTag, { post: "open", tag: "t" }))).status).toBe(403);
    expect((await failure(app.domain.create(as(), PostTag, { post: "open", tag: "t" }))).status).toBe(401);
    await app.domain.create(as(ALICE), PostTag, { post: "open", tag: "t" });
    expect((await failure(app.domain.delete(as(BOB), PostTag, { post: "open", tag: "t" }))).status).toBe(403);
    await app.domain.delete(as(ALICE), PostTag, { post: "open", tag: "t" });
  });
});

describe("filters name only fields the caller may read", () => {
  it("refuses a filter or an order on a user's email, matching or not, for anyone", async () => {
    const { app, User } = await blogWithPosts();
    await app.domain.create(as(ALICE), User, { username: "alice", name: "Alice" }, { email: "alice@example.com" });
    for (const caller of [as(), as(BOB), as(ALICE)]) {
      for (const q of [
        "email = 'alice@example.com'",
        "email = 'nobody@example.com'",
        "email LIKE 'a%'",
        "NOT (email IS NULL)",
        "username = 'alice' ORDER BY email",
      ]) {
        const error = await failure(app.domain.query(caller, User, { q }));
        expect(error.code).toBe("BAD_QUERY");
        expect(error.message).toContain("'email'");
      }
      expect(() => app.domain.checkedFilter(caller, User, "email = 'alice@example.com'")).toThrow(/'email'/);
    }
    expect((await app.domain.query(as(BOB), User, { q: "username = 'alice'" })).results[0]).not.toHaveProperty("email");
    expect((await app.domain.get(as(ALICE), User, { uuid: ALICE })).data.email).toBe("alice@example.com");
  });
});

describe("existence does not leak", () => {
  it("answers an operation on a hidden record as on a missing one", async () => {
    const { app, Post } = await blogWithPosts();
    const hidden = await failure(app.domain.invoke(as(BOB), Post, "publish", { slug: "draft" }, { destination: "linkedin" }));
    const missing = await failure(app.domain.invoke(as(BOB), Post, "publish", { slug: "nope" }, { destination: "linkedin" }));
    expect([hidden.status, hidden.message]).toEqual([404, missing.message]);
  });
});

describe("DynamoDB's limits are checked before any call", () => {
  it("refuses keys over 2048 bytes (partition) and 1024 bytes (sort), index keys included", async () => {
    const { app, Post, Comment } = await blogWithPosts();
    const UserFollow = model(app, "UserFollow");
    expect((await failure(app.domain.get(as(), Post, { slug: "é".repeat(1025) }))).errors[0]?.path).toBe("/slug");
    const sort = await failure(app.domain.create(as(ALICE), UserFollow, { follower: ALICE, following: "x".repeat(1025) }));
    expect(sort.errors).toEqual([{ path: "/following", message: expect.stringContaining("1024 bytes") }]);
    const index = await failure(app.domain.create(as(ALICE), Comment, { content: "x", post: "p".repeat(2049), author: ALICE }));
    expect(index.errors).toEqual([{ path: "/post", message: expect.stringContaining("2048 bytes") }]);
    const query = await failure(app.domain.query(as(), Comment, { q: `post = '${"p".repeat(2049)}'` }));
    expect(query.code).toBe("BAD_QUERY");
  });

  it("refuses numbers DynamoDB cannot hold, and non-finite ones, in the query language", async () => {
    const { app, Post } = await blogWithPosts();
    for (const q of ["viewCount < 1e400", "viewCount > -1e400", "viewCount = 1e126", "viewCount IN [1, 1e-131]"]) {
      expect((await failure(app.domain.query(as(), Post, { q }))).code).toBe("BAD_QUERY");
    }
  });
});
