import { describe, expect, it } from "vitest";
import type { LifecycleEvent } from "../../lib/core/events.ts";
import { ALICE, BOB, as, blog, model, post, failure } from "../support/blog.ts";

describe("domain writes on the blog", () => {
  it("creates a post with server-set author and timestamps, ignoring client attempts to set them", async () => {
    const app = blog();
    const Post = model(app, "Post");
    const { data, version } = await app.domain.create(as(ALICE), Post, {
      ...post("hello"),
      author: BOB,
      createdAt: "1999-01-01T00:00:00.000Z",
      __version: 99,
    });
    expect(version).toBe(1);
    expect(data.author).toBe(ALICE);
    expect(data.createdAt).not.toBe("1999-01-01T00:00:00.000Z");
    expect(data.createdAt).toBe(data.updatedAt);
    expect(data).not.toHaveProperty("__version");
  });

  it("rejects invalid input with JSON-pointer errors and writes nothing", async () => {
    const app = blog();
    const Post = model(app, "Post");
    const error = await failure(app.domain.create(as(ALICE), Post, { slug: "x", status: "live", viewCount: -1, extra: 1 }));
    expect(error.status).toBe(400);
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { path: "/title", message: "is required" },
        { path: "/content", message: "is required" },
        { path: "/status", message: 'must be one of "draft", "published", "archived"' },
        { path: "/viewCount", message: "must be >= 0" },
        { path: "/extra", message: "is not an allowed field" },
      ]),
    );
    expect((await app.domain.query(as(ALICE), Post, {})).results).toEqual([]);
  });

  it("reports a bad email at /email", async () => {
    const app = blog();
    const error = await failure(app.domain.create(as(ALICE), model(app, "User"), { username: "alice", name: "Alice" }, { email: "not-an-email" }));
    expect(error.errors).toEqual([{ path: "/email", message: 'must match format "email"' }]);
  });

  it("refuses a duplicate key with 409 and keeps the first record", async () => {
    const app = blog();
    const Post = model(app, "Post");
    await app.domain.create(as(ALICE), Post, post("dup"));
    const error = await failure(app.domain.create(as(BOB), Post, post("dup", "draft")));
    expect(error.status).toBe(409);
    expect((await app.domain.get(as(), Post, { slug: "dup" })).data.author).toBe(ALICE);
  });

  it("asks anonymous callers to authenticate and forbids non-owners", async () => {
    const app = blog();
    const Post = model(app, "Post");
    expect((await failure(app.domain.create(as(), Post, post("p")))).status).toBe(401);
    await app.domain.create(as(ALICE), Post, post("p"));
    expect((await failure(app.domain.patch(as(BOB), Post, { slug: "p" }, { title: "Mine now" }))).status).toBe(403);
    expect((await failure(app.domain.delete(as(BOB), Post, { slug: "p" }))).status).toBe(403);
    expect((await app.domain.get(as(), Post, { slug: "p" })).data.title).toBe("Title of p");
  });

  it("hides a draft from everyone but its author (404, not 403)", async () => {
    const app = blog();
    const Post = model(app, "Post");
    await app.domain.create(as(ALICE), Post, post("secret", "draft"));
    expect((await failure(app.domain.get(as(BOB), Post, { slug: "secret" }))).status).toBe(404);
    expect((await failure(app.domain.patch(as(BOB), Post, { slug: "secret" }, { title: "x" }))).status).toBe(404);
    expect((await app.domain.get(as(ALICE), Post, { slug: "secret" })).data.status).toBe("draft");
  });

  it("patches only the given fields, removes optional ones on null, and refuses to remove required ones", async () => {
    const app = blog();
    const Post = model(app, "Post");
    await app.domain.create(as(ALICE), Post, post("p", "published", { viewCount: 3 }));
    const { data, version } = await app.domain.patch(as(ALICE), Post, { slug: "p" }, { slug: "p", title: "New" });
    expect(version).toBe(2);
    expect(data).toMatchObject({ title: "New", content: "Some content", viewCount: 3 });
    const removed = await app.domain.patch(as(ALICE), Post, { slug: "p" }, { viewCount: null });
    expect(removed.data).not.toHaveProperty("viewCount");
    const error = await failure(app.domain.patch(as(ALICE), Post, { slug: "p" }, { title: null }));
    expect(error.errors).toEqual([{ path: "/title", message: "is required and cannot be removed" }]);
    const renamed = await failure(app.domain.patch(as(ALICE), Post, { slug: "p" }, { slug: "other" }));
    expect(renamed.errors[0]?.path).toBe("/slug");
  });

  it("full replace keeps server state and honours the expected version", async () => {
    const app = blog();
    const User = model(app, "User");
    const created = await app.domain.create(as(ALICE), User, { username: "alice", name: "Alice", password: { __hash: "forged" } }, { email: "a@example.com" });
    expect(created.data.uuid).toBe(ALICE);
    const repository = app.repository(User);
    const stored = await repository.get({ uuid: ALICE });
    expect(stored?.password).toBeUndefined();
    await repository.patch({ uuid: ALICE }, { password: { __hash: "real" }, __tokens: "kept" }, []);

    const replaced = await app.domain.update(as(ALICE), User, { uuid: ALICE }, { username: "alice2", name: "A", password: { __hash: "x" } });
    expect(replaced.data).toEqual(expect.objectContaining({ username: "alice2", name: "A" }));
    expect(replaced.data).not.toHaveProperty("password");
    const after = await repository.get({ uuid: ALICE });
    expect(after?.password).toEqual({ __hash: "real" });
    expect(after?.__tokens).toBe("kept");
    expect(after?.createdAt).toBe(created.data.createdAt);

    const stale = await failure(app.domain.update(as(ALICE), User, { uuid: ALICE }, { username: "late", name: "L" }, { expectedVersion: 1 }));
    expect(stale.status).toBe(412);
    expect((await repository.get({ uuid: ALICE }))?.username).toBe("alice2");
  });

  it("strips __ keys at any depth and behavior attributes from patch input", async () => {
    const app = blog();
    const User = model(app, "User");
    await app.domain.create(as(ALICE), User, { username: "alice", name: "Alice" }, { email: "a@example.com" });
    const error = await failure(app.domain.patch(as(ALICE), User, { uuid: ALICE }, { bio: { __x: 1 } }));
    expect(error.errors).toEqual([{ path: "/bio", message: "must be string" }]);
    await app.domain.patch(as(ALICE), User, { uuid: ALICE }, { bio: "hi", __admin: true, password: "p" });
    const stored = await app.repository(User).get({ uuid: ALICE });
    expect(stored).not.toHaveProperty("__admin");
    expect(stored).not.toHaveProperty("password");
    expect(stored?.bio).toBe("hi");
  });

  it("shows a user's email to that user only", async () => {
    const app = blog();
    const User = model(app, "User");
    await app.domain.create(as(ALICE), User, { username: "alice", name: "Alice" }, { email: "a@example.com" });
    expect((await app.domain.get(as(ALICE), User, { uuid: ALICE })).data.email).toBe("a@example.com");
    expect((await app.domain.get(as(BOB), User, { uuid: ALICE })).data).not.toHaveProperty("email");
    expect((await app.domain.query(as(), User, {})).results[0]).not.toHaveProperty("email");
  });

  it("emits Created, Patched, Updated and Deleted events after each write", async () => {
    const app = blog();
    const Post = model(app, "Post");
    const seen: LifecycleEvent[] = [];
    app.events.on("Post", (event) => {
      seen.push(event);
    });
    await app.domain.create(as(ALICE), Post, post("e"));
    await app.domain.patch(as(ALICE), Post, { slug: "e" }, { title: "t2" });
    await app.domain.update(as(ALICE), Post, { slug: "e" }, post("e"));
    await app.domain.delete(as(ALICE), Post, { slug: "e" });
    expect(seen.map((e) => e.name)).toEqual(["Post.Created", "Post.Patched", "Post.Updated", "Post.Deleted"]);
    expect(seen.every((e) => e.key.slug === "e")).toBe(true);
    expect(seen[1]?.record.title).toBe("t2");
  });

  it("keeps the write when an event listener fails", async () => {
    const app = blog();
    const Post = model(app, "Post");
    app.events.on("Post.Created", () => {
      throw new Error("listener broke");
    });
    await app.domain.create(as(ALICE), Post, post("ok"));
    expect((await app.domain.get(as(), Post, { slug: "ok" })).data.slug).toBe("ok");
  });

  it("refuses a comment written in someone else's name", async () => {
    const app = blog();
    const Comment = model(app, "Comment");
    await app.domain.create(as(BOB), model(app, "Post"), post("p"));
    const error = await failure(app.domain.create(as(ALICE), Comment, { content: "hi", post: "p", author: BOB }));
    expect(error.status).toBe(403);
    const { data } = await app.domain.create(as(ALICE), Comment, { content: "hi", post: "p", author: ALICE, uuid: "chosen" });
    expect(data.uuid).not.toBe("chosen");
    expect(data.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });
});
