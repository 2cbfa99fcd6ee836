import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_BYTES, RESPONSE_BYTES } from "../../lib/core/list.ts";
import { ALICE, as, model, post } from "../support/blog.ts";
import { graphqlBlog } from "./support.ts";

/**
 * One byte budget per response, not per list: fifteen aliases of
 * `Posts(limit: 100) { results { content } }` answered 10 MiB (each list had 5 MiB of its own),
 * which Lambda refuses above 6 MB. On the old code the first case answered 72 MB and the second
 * 9 MB (both fail there).
 */
const LAMBDA_PAYLOAD = 6 * 1000 * 1000;

async function bigBlog() {
  const g = graphqlBlog();
  const Post = model(g.app, "Post");
  // Each post's JSON is ~600 KB (a control character is escaped to six bytes): 20 of them ~12 MB.
  for (let i = 0; i < 20; i++) {
    await g.app.domain.create(as(ALICE), Post, post(`big-${String(i).padStart(2, "0")}`, "published", { content: "\u0001".repeat(100_000 - i) }));
  }
  return g;
}

interface Page {
  results: { slug: string }[];
  continuationToken: string | null;
}

describe("the response's byte budget", () => {
  it("keeps fifteen aliased lists under Lambda's limit together, each with a token that resumes exactly", async () => {
    const g = await bigBlog();
    const aliases = Array.from({ length: 15 }, (_, i) => `a${i}: Posts(limit: 100) { results { slug content } continuationToken }`).join(" ");
    const answer = await g.post(`{ ${aliases} }`);
    expect(answer.body.errors).toBeUndefined();
    const size = Buffer.byteLength(JSON.stringify(answer.body));
    expect(size).toBeLessThan(LAMBDA_PAYLOAD);
    expect(size).toBeLessThan(RESPONSE_BYTES + 64 * 1024);
    const pages = answer.body.data as Record<string, Page>;
    // Every alias resumes from its own token (empty pages included) to the full list, once each.
    for (const [alias, first] of Object.entries(pages)) {
      const slugs = first.results.map((r) => r.slug);
      let token = first.continuationToken;
      for (let requests = 0; token !== null && requests < 50; requests++) {
        const next = await g.data(`query($t: String) { Posts(limit: 100, offset: $t) { results { slug } continuationToken } }`, { variables: { t: token } });
        const page = next.Posts as Page;
        slugs.push(...page.results.map((r) => r.slug));
        token = page.continuationToken;
      }
      expect(slugs.sort(), alias).toEqual(Array.from({ length: 20 }, (_, i) => `big-${String(i).padStart(2, "0")}`));
    }
    // Some alias came back empty with a token: the budget was spent before it started.
    expect(Object.values(pages).some((page) => page.results.length === 0 && page.continuationToken !== null)).toBe(true);
  });

  it("answers RESPONSE_TOO_LARGE, not an answer Lambda refuses, when records read by key pass 6 MB", async () => {
    const g = await bigBlog();
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: Post(slug: "big-${String(i).padStart(2, "0")}") { slug content }`).join(" ")} }`;
    const refused = await g.post(aliases(15));
    expect(Buffer.byteLength(JSON.stringify(refused.body))).toBeLessThan(LAMBDA_PAYLOAD);
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors?.map((e) => e.extensions.code)).toEqual(["RESPONSE_TOO_LARGE"]);
    const fine = await g.post(aliases(5));
    expect(fine.body.errors).toBeUndefined();
    expect(Object.keys(fine.body.data ?? {})).toHaveLength(5);
  });

  it("counts a page's records as Lambda's payload holds them (the body escaped once more)", async () => {
    const g = await bigBlog();
    const page = await g.app.domain.query(as(), model(g.app, "Post"), { q: "", limit: 100 });
    // Each record is ~600 KB of JSON but ~700 KB inside the payload: 8 fitted 5 MiB by their JSON
    // (a 5.6 MB payload for the records alone); 7 fit by the payload.
    const payload = page.results.reduce((sum, record) => sum + Buffer.byteLength(JSON.stringify(JSON.stringify(record))) - 2 + 1, 0);
    expect(payload).toBeLessThanOrEqual(DEFAULT_PAGE_BYTES);
    expect(page.results).toHaveLength(7);
    expect(page.continuationToken).not.toBeNull();
  });

  it("leaves a request of small lists alone", async () => {
    const g = await bigBlog();
    const answer = await g.post(`{ a: Posts(limit: 3) { results { slug } continuationToken } b: Posts(limit: 3) { results { slug } continuationToken } }`);
    const pages = answer.body.data as Record<string, Page>;
    expect(pages.a?.results).toHaveLength(3);
    expect(pages.b?.results).toHaveLength(3);
  });
});
