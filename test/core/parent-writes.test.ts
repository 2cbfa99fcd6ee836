import { describe, expect, it } from "vitest";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { Application } from "../../lib/core/application.ts";
import { belongsTo, Model, Type, type Action, type Context, type Decision, type RelationDeclarations } from "../../lib/index.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { definition } from "../fixtures/blog/index.ts";
import { Post as PostModel } from "../fixtures/blog/models/post.ts";
import { ALICE, BOB, as, blog, failure, model, post } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { asServerlessOffline } from "../support/offline-env.ts";
import { inProcess } from "../support/parts.ts";

/**
 * Every write re-checks the parent named by the record it produces. Bob
 * comments on Alice's published post, then tries to move the comment onto her draft, or onto a
 * post that does not exist, by patch, by PUT and by GraphQL's update; the same holds on create.
 */

asServerlessOffline();

/** A record pinned to a post: creating one needs the right to change the post, updating it does not. */
class Pin extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String({ format: "uuid" }),
    post: Type.String({ minLength: 1 }),
    owner: Type.String(),
    note: Type.Optional(Type.String()),
  });
  static override readonly relations: RelationDeclarations = {
    post: belongsTo(() => PostModel, { requires: { read: "read", create: "update" } }),
  };
  declare owner: string;
  override canAct(ctx: Context, action: Action): Decision {
    return action === "read" || ctx.getCurrentUserId() === this.owner ? true : "not the owner";
  }
}

const PARENT_REFUSED = { path: "/post", message: "must name a Post you can read" };

async function scene() {
  const app = blog();
  const Post = model(app, "Post");
  const Comment = model(app, "Comment");
  await app.domain.create(as(ALICE), Post, post("open"));
  await app.domain.create(as(ALICE), Post, post("alice-draft", "draft"));
  await app.domain.create(as(BOB), Post, post("bob-open"));
  const { data } = await app.domain.create(as(BOB), Comment, { content: "mine", post: "open", author: BOB });
  const uuid = data.uuid as string;
  const stored = async () => (await app.domain.get(as(BOB), Comment, { uuid })).data;
  return { app, Post, Comment, uuid, stored };
}

describe("the domain layer re-checks the parent a write names", () => {
  it("refuses moving a comment onto a post its author cannot read, by patch and by update, and changes nothing", async () => {
    const { app, Comment, uuid, stored } = await scene();
    for (const target of ["alice-draft", "nope"]) {
      const patched = await failure(app.domain.patch(as(BOB), Comment, { uuid }, { post: target }));
      const replaced = await failure(app.domain.update(as(BOB), Comment, { uuid }, { content: "moved", post: target, author: BOB }));
      for (const error of [patched, replaced]) expect([error.status, error.errors]).toEqual([400, [PARENT_REFUSED]]);
    }
    expect(await stored()).toMatchObject({ post: "open", content: "mine" });
    // Alice's draft shows no comment of Bob's.
    expect((await app.domain.query(as(ALICE), Comment, { q: "post = 'alice-draft'" })).results).toEqual([]);
  });

  it("answers a hidden parent exactly as a missing one, on create too", async () => {
    const { app, Comment } = await scene();
    const hidden = await failure(app.domain.create(as(BOB), Comment, { content: "x", post: "alice-draft", author: BOB }));
    const missing = await failure(app.domain.create(as(BOB), Comment, { content: "x", post: "nope", author: BOB }));
    expect([hidden.status, hidden.message, hidden.errors]).toEqual([missing.status, missing.message, missing.errors]);
    expect([hidden.status, hidden.errors]).toEqual([400, [PARENT_REFUSED]]);
  });

  it("still lets a comment move to a post its author may read, and the draft's author comment on it", async () => {
    const { app, Comment, uuid } = await scene();
    expect((await app.domain.patch(as(BOB), Comment, { uuid }, { post: "bob-open" })).data).toMatchObject({ post: "bob-open" });
    expect((await app.domain.create(as(ALICE), Comment, { content: "note", post: "alice-draft", author: ALICE })).data).toMatchObject({ post: "alice-draft" });
  });

  it("tells an anonymous caller to authenticate before anything about the parent", async () => {
    const { app, Comment } = await scene();
    expect((await failure(app.domain.create(as(), Comment, { content: "x", post: "nope", author: BOB }))).status).toBe(401);
  });

  it("asks, when a write moves a record to another parent, what a create under that parent needs", async () => {
    const app = new Application({ ...definition, models: [...definition.models, Pin] }, inProcess).useStore(memoryStore);
    const Post = model(app, "Post");
    const PinInfo = model(app, "Pin");
    await app.domain.create(as(ALICE), Post, post("open"));
    await app.domain.create(as(BOB), Post, post("bob-open"));
    const { data } = await app.domain.create(as(BOB), PinInfo, { post: "bob-open", owner: BOB });
    const uuid = data.uuid as string;
    // Alice's post is readable (no secret that it exists) but not Bob's to change: 403, not 400.
    expect((await failure(app.domain.patch(as(BOB), PinInfo, { uuid }, { post: "open" }))).status).toBe(403);
    expect((await failure(app.domain.update(as(BOB), PinInfo, { uuid }, { post: "open", owner: BOB }))).status).toBe(403);
    expect((await failure(app.domain.patch(as(BOB), PinInfo, { uuid }, { post: "nope" }))).errors).toEqual([
      { path: "/post", message: "must name a Post you can read" },
    ]);
    // Unmoved, the pin's own update rule (none on the post) is all that is asked.
    expect((await app.domain.patch(as(BOB), PinInfo, { uuid }, { note: "kept" })).data).toMatchObject({ post: "bob-open", note: "kept" });
  });
});

describe("every face inherits the check", () => {
  it("REST: PATCH and PUT of /comments/<id> onto Alice's draft or a missing post answer 400 naming the field", async () => {
    const { app, uuid, stored } = await scene();
    const handler = restHandler(app);
    for (const target of ["alice-draft", "nope"]) {
      const patched = await call(handler, httpEvent("PATCH", `/comments/${uuid}`, { body: { post: target }, headers: { "x-test-user": BOB } }));
      const replaced = await call(
        handler,
        httpEvent("PUT", `/comments/${uuid}`, { body: { content: "moved", post: target, author: BOB }, headers: { "x-test-user": BOB } }),
      );
      for (const answer of [patched, replaced]) expect(answer).toMatchObject({ statusCode: 400, body: { code: 400, errors: [PARENT_REFUSED] } });
    }
    expect(await stored()).toMatchObject({ post: "open" });
  });

  it("GraphQL: updateComment onto Alice's draft is refused with BAD_USER_INPUT naming the field", async () => {
    const { app, uuid, stored } = await scene();
    const handler = graphqlHandler(app, graphqlOptions(app));
    for (const target of ["alice-draft", "nope"]) {
      const query = `mutation { updateComment(uuid: "${uuid}", Comment: { content: "moved", post: "${target}", author: "${BOB}" }) { uuid content } }`;
      const answer = await call(handler, httpEvent("POST", "/graphql", { body: { query }, headers: { "x-test-user": BOB } }));
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ data: { updateComment: null }, errors: [{ extensions: { code: "BAD_USER_INPUT" } }] });
      expect(JSON.stringify(answer.body)).toContain("/post");
    }
    expect(await stored()).toMatchObject({ post: "open" });
  });
});
