import { afterEach, describe, expect, it, vi } from "vitest";
import { ContinuationSealer } from "../../lib/core/continuation.ts";
import { ALICE, as, blog } from "../support/blog.ts";
import { seedPosts } from "../support/dated-posts.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a page's continuation token", () => {
  it("is sealed when first read, then the same on every read, in JSON too, and resumes the listing", async () => {
    const app = blog();
    const Post = await seedPosts(app);
    const seal = vi.spyOn(ContinuationSealer.prototype, "seal");
    const page = await app.domain.query(as(ALICE), Post, { q: "", limit: 4 });
    expect(seal).not.toHaveBeenCalled();
    const token = page.continuationToken;
    expect(token).toEqual(expect.any(String));
    expect(page.continuationToken).toBe(token);
    expect((JSON.parse(JSON.stringify(page)) as { continuationToken: string }).continuationToken).toBe(token);
    expect({ ...page }.continuationToken).toBe(token);
    expect(seal).toHaveBeenCalledTimes(1);
    const next = await app.domain.query(as(ALICE), Post, { q: "", limit: 4, offset: token });
    expect(next.results.map((r) => r.slug)).not.toContain(page.results[0]?.slug);
    expect(next.results).toHaveLength(4);
  });

  it("is null, sealing nothing, on the last page", async () => {
    const app = blog();
    const Post = await seedPosts(app);
    const seal = vi.spyOn(ContinuationSealer.prototype, "seal");
    const page = await app.domain.query(as(ALICE), Post, { q: "", limit: 100 });
    expect(page.continuationToken).toBeNull();
    expect(seal).not.toHaveBeenCalled();
  });
});
