import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { render, summarise, worstShapes } from "../../lib/local/metrics-summary.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";

let dir = "";
const saved = { file: process.env.METRICS_FILE, metrics: process.env.METRICS };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "index-advisor-"));
  process.env.METRICS_FILE = join(dir, "metrics.jsonl");
  delete process.env.METRICS;
});
afterAll(async () => {
  if (saved.file === undefined) delete process.env.METRICS_FILE;
  else process.env.METRICS_FILE = saved.file;
  if (saved.metrics !== undefined) process.env.METRICS = saved.metrics;
  await rm(dir, { recursive: true, force: true });
});

/** Follows a listing to its end, as a client does; returns the rows found. */
async function follow(rest: ReturnType<typeof restHandler>, q: string): Promise<number> {
  let token: string | null = null;
  let rows = 0;
  do {
    const answer = await call(
      rest,
      httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body: { q, limit: 10, ...(token ? { continuationToken: token } : {}) } }),
    );
    expect(answer.statusCode).toBe(200);
    const page = answer.body as { results: unknown[]; continuationToken: string | null };
    rows += page.results.length;
    token = page.continuationToken;
  } while (token);
  return rows;
}

describe("the index advisor (npm run metrics)", () => {
  it("lists a seeded sparse filter's shape first, with the index that would serve it, and never a value", async () => {
    const app = blog();
    const info = model(app, "Post");
    // 1,200 published posts, viewCount 0..1199 spread over the key order: `viewCount < 12` keeps 1%, `viewCount >= 600` half.
    for (let n = 0; n < 1200; n++) await app.domain.create(as(ALICE), info, post(`p${String(n).padStart(4, "0")}`, "published", { viewCount: (n * 7) % 1200 }));
    const rest = restHandler(app);
    expect(await follow(rest, "viewCount < 12")).toBe(12);
    expect(await follow(rest, "viewCount >= 600")).toBe(600);
    // Served by by_status (status fixed, ordered by its sort key): about one item per row.
    expect(
      (await call(rest, httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body: { q: "status = 'published' ORDER BY createdAt DESC", limit: 10 } })))
        .statusCode,
    ).toBe(200);

    const text = await readFile(join(dir, "metrics.jsonl"), "utf8");
    expect(text).not.toMatch(/viewCount < 12|published'/);
    const summary = summarise(text, 0);
    const worst = worstShapes(summary);
    expect(worst.map((w) => `${w.model}: ${w.shape}`)).toEqual(["Post: viewCount < ?"]);
    const [sparse] = worst;
    // Every row read once, twelve returned.
    expect(sparse?.itemsRead).toBeGreaterThanOrEqual(1200);
    expect(sparse?.rowsReturned).toBe(12);
    expect(sparse?.advice).toBe(`{ name: "by_status_viewCount", hash: "status", range: "viewCount" } (and fix status with = in the filter)`);
    expect(summary.shapes.get("Post viewCount >= ?")?.rowsReturned).toBe(600);
    const report = render(summary, 5);
    expect(report).toContain("Post: viewCount < ?");
    expect(report).toContain(`indexes: [{ name: "by_status_viewCount", hash: "status", range: "viewCount" }] (and fix status with = in the filter)`);
  }, 120_000);
});
