import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, as, BOB, model } from "../support/blog.ts";
import { enableTestUser, graphqlBlog } from "./support.ts";

let restore: () => void;
beforeAll(() => {
  restore = enableTestUser();
});
afterAll(() => restore());

const g = graphqlBlog();
const profile = (name: string) => ({ username: name, name: name.toUpperCase() });

beforeAll(async () => {
  await g.data(`mutation($u: UserInput!) { createUser(User: $u) { uuid } }`, { user: ALICE, variables: { u: profile("alice") } });
  // The address is the server's to write (the authentication service's, from the sign-in).
  await g.app.domain.create(as(BOB), model(g.app, "User"), profile("bob"), { email: "bob@example.com" });
  await g.app.repository(model(g.app, "User")).patch({ uuid: ALICE }, { email: "alice@example.com" }, []);
});

describe("GraphQL queries and mutations (memory store)", () => {
  it("creates, reads, updates and deletes through the domain, keyed by the real key", async () => {
    const created = await g.data(
      `mutation { createPost(Post: {slug: "gql-1", title: "One", content: "c", status: "draft", viewCount: 3}) { slug title author { uuid } createdAt updatedAt } }`,
      { user: ALICE },
    );
    expect(created.createPost).toMatchObject({ slug: "gql-1", title: "One", author: { uuid: ALICE }, createdAt: expect.stringMatching(/^\d{4}-/) });
    expect(await g.data(`{ Post(slug: "gql-1") { slug status viewCount } }`, { user: ALICE })).toEqual({
      Post: { slug: "gql-1", status: "draft", viewCount: 3 },
    });
    const updated = await g.data(
      `mutation { updatePost(uuid: "gql-1", Post: {slug: "gql-1", title: "Two", content: "c", status: "published"}) { title status viewCount author { uuid } } }`,
      { user: ALICE },
    );
    expect(updated.updatePost).toEqual({ title: "Two", status: "published", viewCount: null, author: { uuid: ALICE } });
    expect(await g.data(`mutation { deletePost(uuid: "gql-1") { success } }`, { user: ALICE })).toEqual({ deletePost: { success: true } });
    expect(await g.data(`{ Post(slug: "gql-1") { slug } }`)).toEqual({ Post: null });
  });

  it("returns null without error for a record missing or hidden from the caller", async () => {
    await g.data(`mutation { createPost(Post: {slug: "secret", title: "S", content: "c", status: "draft"}) { slug } }`, { user: ALICE });
    const hidden = await g.post(`{ Post(slug: "secret") { slug } missing: Post(slug: "nothing") { slug } }`, { user: BOB });
    expect(hidden.body).toEqual({ data: { Post: null, missing: null } });
  });

  it("lists with the query language, limit and continuation token", async () => {
    for (const n of [1, 2, 3])
      await g.data(`mutation($p: PostInput!) { createPost(Post: $p) { slug } }`, {
        user: BOB,
        variables: { p: { slug: `list-${n}`, title: `T${n}`, content: "c", status: "published" } },
      });
    const first = await g.data(`{ Posts(query: "slug LIKE 'list-%'", limit: 2) { results { slug } continuationToken } }`);
    const page = first.Posts as { results: { slug: string }[]; continuationToken: string };
    expect(page.results).toHaveLength(2);
    const next = await g.data(`query($o: String) { Posts(query: "slug LIKE 'list-%'", limit: 2, offset: $o) { results { slug } continuationToken } }`, {
      variables: { o: page.continuationToken },
    });
    const rest = next.Posts as { results: { slug: string }[]; continuationToken: null };
    expect([...page.results, ...rest.results].map((r) => r.slug).sort()).toEqual(["list-1", "list-2", "list-3"]);
    expect(rest.continuationToken).toBeNull();
  });

  it("strips and validates input exactly as REST does (BAD_USER_INPUT with the errors list)", async () => {
    const bad = await g.post(`mutation { createPost(Post: {slug: "has space", title: "", content: "c", status: "nope"}) { slug } }`, { user: ALICE });
    expect(bad.statusCode).toBe(200);
    expect(bad.body.data).toEqual({ createPost: null });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      errors: expect.arrayContaining([
        { path: "/title", message: expect.any(String) },
        { path: "/slug", message: expect.any(String) },
        { path: "/status", message: expect.any(String) },
      ]),
    });
    // A required field is non-null in the input type (as OpenAPI requires it): leaving it out is
    // refused by GraphQL's own validation, naming it, before anything runs.
    const missing = await g.post(`mutation { createPost(Post: {slug: "s", title: "t", status: "draft"}) { slug } }`, { user: ALICE });
    expect(missing.body.data).toBeUndefined();
    expect(missing.body.errors?.[0]?.message).toContain("content");
    const input = await g.post(`{ __type(name: "PostInput") { inputFields { name } } }`);
    expect((input.body.data?.__type as { inputFields: { name: string }[] }).inputFields.map((f) => f.name)).toEqual([
      "slug",
      "title",
      "content",
      "status",
      "viewCount",
    ]);
  });

  it("maps domain errors to codes, with partial data where other fields succeeded", async () => {
    await g.data(`mutation { createPost(Post: {slug: "alices", title: "A", content: "c", status: "published"}) { slug } }`, { user: ALICE });
    const denied = await g.post(`mutation { deletePost(uuid: "alices") { success } }`, { user: BOB });
    expect(denied.body.errors?.[0]?.extensions.code).toBe("PERMISSION_DENIED");
    const anonymous = await g.post(`mutation { deletePost(uuid: "alices") { success } }`);
    expect(anonymous.body.errors?.[0]?.extensions.code).toBe("UNAUTHENTICATED");
    const missing = await g.post(`mutation { deletePost(uuid: "never") { success } }`, { user: BOB });
    expect(missing.body.errors?.[0]?.extensions.code).toBe("NOT_FOUND");
    const conflict = await g.post(`mutation { createPost(Post: {slug: "alices", title: "A", content: "c", status: "published"}) { slug } }`, { user: ALICE });
    expect(conflict.body.errors?.[0]?.extensions.code).toBe("CONFLICT");
    const badQuery = await g.post(`{ Posts(query: "title ==") { results { slug } } ok: Post(slug: "alices") { slug } }`);
    expect(badQuery.body.errors?.[0]).toMatchObject({ path: ["Posts"], extensions: { code: "BAD_QUERY" } });
    expect(badQuery.body.data).toEqual({ Posts: null, ok: { slug: "alices" } });
  });

  it("answers me with the current user, and null for an anonymous request", async () => {
    expect(await g.data(`{ me { uuid username email } }`, { user: ALICE })).toEqual({ me: { uuid: ALICE, username: "alice", email: "alice@example.com" } });
    expect(await g.data(`{ me { uuid } }`)).toEqual({ me: null });
    expect(await g.data(`{ me { uuid } }`, { user: "no-profile-yet" })).toEqual({ me: null });
  });

  it("resolves relations, hiding another user's email inside nested selections", async () => {
    await g.data(`mutation { createPost(Post: {slug: "rel", title: "R", content: "c", status: "published"}) { slug } }`, { user: ALICE });
    await g.data(
      `mutation { createTag(Tag: {slug: "t1", name: "One", description: "", color: "#112233"}) { slug } createPostTag(PostTag: {post: "rel", tag: "t1"}) { post { slug } } }`,
      { user: ALICE },
    );
    await g.data(`mutation($c: CommentInput!) { createComment(Comment: $c) { uuid } }`, {
      user: BOB,
      variables: { c: { content: "nice", post: "rel", author: BOB } },
    });
    const query = `{ Post(slug: "rel") { author { username email } tags { slug name } comments(limit: 5) { results { content author { username email } post { slug } } continuationToken } } }`;
    const asBob = await g.data(query, { user: BOB });
    expect(asBob.Post).toEqual({
      author: { username: "alice", email: null },
      tags: [{ slug: "t1", name: "One" }],
      comments: { results: [{ content: "nice", author: { username: "bob", email: "bob@example.com" }, post: { slug: "rel" } }], continuationToken: null },
    });
    const list = await g.data(`{ Posts(query: "slug = 'rel'") { results { author { email } } } }`, { user: BOB });
    expect(list.Posts).toEqual({ results: [{ author: { email: null } }] });
    const filtered = await g.data(`{ Post(slug: "rel") { comments(query: "content = 'other'") { results { content } } } }`);
    expect(filtered.Post).toEqual({ comments: { results: [] } });
  });

  it("exposes model and service operations by the naming rule, GET operations as queries", async () => {
    await g.data(`mutation { createPost(Post: {slug: "op", title: "O", content: "c", status: "published"}) { slug } }`, { user: ALICE });
    const result = await g.data(
      `mutation { publishPost(slug: "op", destination: "twitter") testbeanTestOperation(counter: 4095) publisherPublish(message: "m") }`,
      { user: ALICE },
    );
    expect(result).toEqual({ publishPost: "Post 'op' shared on twitter", testbeanTestOperation: "fff", publisherPublish: "Published: m" });
    expect(await g.data(`mutation { publisherPublishPost(postId: "op") { postId status } }`, { user: ALICE })).toEqual({
      publisherPublishPost: { postId: "op", status: "published" },
    });
    expect(await g.data(`{ versionVersion }`)).toEqual({ versionVersion: g.app.version });
    const invalid = await g.post(`mutation { publishPost(slug: "op", destination: "myspace") }`, { user: ALICE });
    expect(invalid.body.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", errors: [{ path: "/destination" }] });
  });

  it("serves composite keys", async () => {
    await g.data(`mutation { createUserFollow(UserFollow: {follower: "${BOB}", following: "${ALICE}"}) { following { username } } }`, { user: BOB });
    expect(await g.data(`{ UserFollow(follower: "${BOB}", following: "${ALICE}") { follower { username } } }`)).toEqual({
      UserFollow: { follower: { username: "bob" } },
    });
    expect(await g.data(`mutation { deleteUserFollow(follower: "${BOB}", following: "${ALICE}") { success } }`, { user: BOB })).toEqual({
      deleteUserFollow: { success: true },
    });
  });
});
