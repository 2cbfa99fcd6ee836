import type { Application } from "../../lib/core/application.ts";
import { ALICE, as, blog, model, post } from "../../test/support/blog.ts";

export const WRITERS = Array.from({ length: 5 }, (_, i) => `0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a01${String(i).padStart(2, "0")}`);
export const TAGS = ["red", "green", "blue"];
export { ALICE };

/** 5 writers, 3 tags, 50 published posts with 2 tags each, and a post ALICE may rewrite. */
export async function seedBlog(app: Application): Promise<void> {
  const [User, Tag, Post, PostTag] = ["User", "Tag", "Post", "PostTag"].map((name) => model(app, name)) as [
    ReturnType<typeof model>,
    ReturnType<typeof model>,
    ReturnType<typeof model>,
    ReturnType<typeof model>,
  ];
  for (const [i, user] of WRITERS.entries())
    await app.domain.create(as(user), User, { username: `writer${i}`, name: `Writer ${i}` }, { email: `w${i}@example.com` });
  // ALICE signs in (bench/warm/scenarios.ts): the mutation carries her bearer access token.
  await app.domain.create(as(ALICE), User, { username: "alice", name: "Alice" }, { email: "alice@example.com" });
  for (const slug of TAGS) await app.domain.create(as(WRITERS[0]), Tag, { slug, name: slug.toUpperCase(), description: "", color: "#000000" });
  for (let i = 0; i < 50; i++) {
    const writer = WRITERS[i % WRITERS.length];
    await app.domain.create(as(writer), Post, post(`p${i}`));
    await app.domain.create(as(writer), PostTag, { post: `p${i}`, tag: TAGS[i % 3] });
    await app.domain.create(as(writer), PostTag, { post: `p${i}`, tag: TAGS[(i + 1) % 3] });
  }
  await app.domain.create(as(ALICE), Post, post("mutable"));
}

/** The memory-store blog every warm scenario reads. */
export async function seededBlog(): Promise<Application> {
  const app = blog();
  await seedBlog(app);
  return app;
}
