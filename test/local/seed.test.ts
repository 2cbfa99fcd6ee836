import { describe, expect, it } from "vitest";
import { seed } from "../fixtures/blog/seed/data.ts";
import { Context } from "../../lib/core/context.ts";
import { authenticationOf, EmailPasswordProvider } from "../../lib/auth/index.ts";
import { isEmpty, seedApplication, totals } from "../../lib/local/seed.ts";
import { seedCredentials } from "../../lib/local/seed-credentials.ts";
import { SeedRefused, seedTarget } from "../../lib/local/seed-target.ts";
import { blog, model } from "../support/blog.ts";

describe("seeding the sample application", () => {
  it("creates a living blog through the domain layer, and a second run adds nothing", async () => {
    const app = blog();
    const events: string[] = [];
    app.events.on("*", (event) => {
      events.push(event.name);
    });
    expect(await isEmpty(app)).toBe(true);

    const first = await seedApplication(app, seed);
    expect(totals(first)).toEqual({ created: seed.users.length + seed.records.length, existing: 0 });
    expect(first.models).toMatchObject({
      User: { created: 3 },
      Post: { created: 6 },
      Tag: { created: 4 },
      PostTag: { created: 6 },
      Comment: { created: 3 },
      UserFollow: { created: 3 },
    });
    // Lifecycle events fired as for any client write (subscriptions see the seed).
    expect(events.filter((e) => e === "Post.Created")).toHaveLength(6);
    expect(await isEmpty(app)).toBe(false);

    const second = await seedApplication(app, seed);
    expect(totals(second)).toEqual({ created: 0, existing: seed.users.length + seed.records.length });
    const comments = await app.domain.query(Context.anonymous(), model(app, "Comment"), { q: "" });
    expect(comments.results).toHaveLength(3);
  });

  it("lets the domain set what the server owns, and keeps drafts private to their authors", async () => {
    const app = blog();
    await seedApplication(app, seed);
    const [alice, bob] = seed.users;
    const Post = model(app, "Post");
    const anonymous = await app.domain.query(Context.anonymous(), Post, { q: "status = 'published'" });
    const authors = new Set(anonymous.results.map((p) => p.author));
    expect(authors.size).toBeGreaterThanOrEqual(3);
    const everything = await app.domain.query(Context.anonymous(), Post, { q: "" });
    expect(everything.results.every((p) => p.status === "published")).toBe(true);
    const drafts = await app.domain.query(new Context({ userId: alice?.uuid }), Post, { q: `author = '${alice?.uuid}' AND status = 'draft'` });
    expect(drafts.results.map((p) => p.slug)).toEqual(["streams-notes"]);
    const tag = await app.domain.get(Context.anonymous(), model(app, "Tag"), { slug: "graphql" });
    expect(tag.data.createdBy).toBe(bob?.uuid);
    // Profiles are public, emails are not.
    const profile = await app.domain.get(Context.anonymous(), model(app, "User"), { uuid: alice?.uuid ?? "" });
    expect(profile.data).toMatchObject({ username: "alice" });
    expect(profile.data.email).toBeUndefined();
  });

  it("passes every user to the credential setter, on every run", async () => {
    const app = blog();
    const seen: string[] = [];
    const report = await seedApplication(app, seed, { credentials: async (_app, user) => (seen.push(user.email), true) });
    expect(report.credentials).toBe(3);
    expect(seen).toEqual(seed.users.map((u) => u.email));
  });

  it("gives each user a verified email ident and a password they log in with, once", async () => {
    const app = blog();
    await seedApplication(app, seed, { credentials: seedCredentials });
    const [alice] = seed.users;
    if (!alice) throw new Error("no seed user");
    const auth = authenticationOf(app);
    expect(await auth?.idents.find("email", alice.email)).toMatchObject({ user: alice.uuid, verifiedAt: expect.any(String) });
    const hash = (await app.repository(model(app, "User")).get({ uuid: alice.uuid }))?.password;
    const again = await seedApplication(app, seed, { credentials: seedCredentials });
    expect(again.credentials).toBe(3);
    expect((await app.repository(model(app, "User")).get({ uuid: alice.uuid }))?.password).toEqual(hash);
    const provider = app
      .services()
      .map((e) => e.service)
      .find((s): s is EmailPasswordProvider => s instanceof EmailPasswordProvider);
    const login = await provider?.login(alice.email, alice.password);
    expect(login).toMatchObject({ token_type: "Bearer", user: { uuid: alice.uuid } });
    await expect(provider?.login(alice.email, "not-the-password")).rejects.toThrow();
  });

  it("refuses invalid seed data through the domain's validation", async () => {
    const app = blog();
    const bad = {
      users: seed.users,
      records: [{ model: "Post", as: seed.users[0]?.uuid ?? "", data: { slug: "x", title: "", content: "c", status: "nope" } }],
    };
    await expect(seedApplication(app, bad)).rejects.toMatchObject({ status: 400 });
  });
});

describe("npm run seed's target", () => {
  it("is the local stage by default", () => {
    expect(seedTarget([], "blog", {})).toEqual({ stage: "local", endpoint: "http://127.0.0.1:8000", tablePrefix: "blog-local-", local: true });
    expect(seedTarget([], "blog", { DYNAMODB_ENDPOINT: "http://127.0.0.1:9000", TABLE_PREFIX: "x-" })).toMatchObject({
      endpoint: "http://127.0.0.1:9000",
      tablePrefix: "x-",
    });
  });

  it("refuses a deployed stage unless --force names that same stage", () => {
    expect(() => seedTarget(["--stage", "prod"], "blog", {})).toThrow(SeedRefused);
    expect(() => seedTarget(["--stage", "prod", "--force", "dev"], "blog", {})).toThrow(/--force prod/);
    expect(() => seedTarget(["--stage", "prod", "--force"], "blog", {})).toThrow();
    expect(() => seedTarget(["--force", "local", "--stage", "../x"], "blog", {})).toThrow(SeedRefused);
    expect(seedTarget(["--stage", "prod", "--force", "prod"], "blog", {})).toEqual({
      stage: "prod",
      endpoint: undefined,
      tablePrefix: "blog-prod-",
      local: false,
    });
  });
});
