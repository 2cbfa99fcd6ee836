import { readFileSync } from "node:fs";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphiqlHandler, serveGraphiQL } from "../../lib/graphql/graphiql.ts";
import { defaultDocument } from "../../lib/graphql/graphiql-page.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { requireChromium, skipWithoutChromium } from "../support/chromium.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";
import { serveHandlers } from "./serve.ts";
import { graphqlBlog } from "./support.ts";

const app = blog();
const graphiql = graphiqlHandler(app);

interface Raw {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

async function raw(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return (await graphiql(httpEvent("GET", path, { headers }), lambdaContext())) as Raw;
}

/** The asset URLs the page names, relative to the site root. */
async function assetPaths(): Promise<string[]> {
  const page = await raw("/graphiql");
  return [...page.body.matchAll(/(?:src|href)="(graphiql\/[^"]+)"/g)].map((m) => `/${m[1]}`);
}

describe("GraphiQL page", () => {
  it("is HTML, revalidated on each visit, naming content-hashed assets", async () => {
    const page = await raw("/graphiql");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["cache-control"]).toBe("no-cache");
    const paths = await assetPaths();
    expect(paths).toHaveLength(5);
    for (const path of paths) expect(path).toMatch(/^\/graphiql\/[a-z-]+\.[A-Za-z0-9_-]{12}\.(js|css)$/);
  });

  it("serves assets compressed by Accept-Encoding, cached as immutable, byte for byte the npm files", async () => {
    const script = (await assetPaths()).find((p) => p.startsWith("/graphiql/graphiql.") && p.endsWith(".js"));
    if (!script) throw new Error("no graphiql script on the page");
    const original = readFileSync("node_modules/graphiql/graphiql.min.js");

    const br = await raw(script, { "accept-encoding": "gzip, deflate, br" });
    expect(br).toMatchObject({ statusCode: 200, isBase64Encoded: true });
    expect(br.headers).toMatchObject({ "content-encoding": "br", vary: "accept-encoding", "cache-control": "public, max-age=31536000, immutable" });
    const brBytes = Buffer.from(br.body, "base64");
    expect(brBytes.length).toBeLessThan(original.length / 3);
    expect(brotliDecompressSync(brBytes).equals(original)).toBe(true);

    const gz = await raw(script, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(Buffer.from(gz.body, "base64")).equals(original)).toBe(true);

    const plain = await raw(script);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.isBase64Encoded).toBeUndefined();
    expect(plain.body).toBe(original.toString("utf8"));
  });

  it("answers 404 for unknown names, stale hashes and path tricks, and everything when hidden", async () => {
    const [first] = await assetPaths();
    const stale = first?.replace(/\.[A-Za-z0-9_-]{12}\./, ".AAAAAAAAAAAA.") ?? "";
    for (const path of ["/graphiql/graphiql.js", stale, "/graphiql/../../etc/passwd", "/graphiql/%2e%2e%2fpackage.json"]) {
      expect((await raw(path)).statusCode, path).toBe(404);
    }
    const request = {
      method: "GET",
      path: "/graphiql",
      headers: {},
      query: {},
      cookies: [],
      body: undefined,
      requestId: "r",
      routeKey: "$default",
      sourceIp: undefined,
      payloadVersion: "2.0" as const,
    };
    expect((await serveGraphiQL(request, false)).statusCode).toBe(404);
  });

  it("opens on the blog's own document: a published-posts query with author and tags, and a commented mutation", () => {
    const DEFAULT_DOCUMENT = defaultDocument(app);
    expect(DEFAULT_DOCUMENT).toMatch(/Posts\(query: "status = 'published'/);
    expect(DEFAULT_DOCUMENT).toMatch(/author \{ username name \}/);
    expect(DEFAULT_DOCUMENT).toMatch(/tags \{ slug name/);
    expect(DEFAULT_DOCUMENT).toMatch(/^# mutation CreatePost/m);
    expect(DEFAULT_DOCUMENT).toContain("Bearer <ACCESS_TOKEN>");
  });
});

describe.skipIf(skipWithoutChromium())("GraphiQL in headless Chromium", () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof serveHandlers>>;

  beforeAll(async () => {
    const g = graphqlBlog({}, app);
    await g.app.domain.create(as(ALICE), model(g.app, "Post"), post("graphiql-seen"));
    server = await serveHandlers([
      ["/graphiql", graphiql],
      ["/graphql", g.handler],
    ]);
    browser = await chromium.launch({
      executablePath: requireChromium(),
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-quic",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("opens through the /graphql redirect, runs a query and shows its result, without internet", async () => {
    const page = await browser.newPage();
    const external: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) external.push(r.url());
    });
    await page.goto(`${server.url}/graphql?query=${encodeURIComponent("{ versionVersion }")}`);
    expect(new URL(page.url()).pathname).toBe("/graphiql");
    await page.locator(".graphiql-execute-button").click({ timeout: 20_000 });
    await expect.poll(async () => page.locator(".result-window").innerText(), { timeout: 20_000 }).toContain(`"versionVersion": "${app.version}"`);
    expect(external).toEqual([]);
    await page.close();
  });

  it("runs its default document as is, loads compressed assets, and sends a token pasted in Headers", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const encodings = new Map<string, string | undefined>();
    page.on("response", (r) => {
      if (r.url().includes("/graphiql/")) encodings.set(new URL(r.url()).pathname, r.headers()["content-encoding"]);
    });
    const sent: (string | undefined)[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/graphql" && r.postData()?.includes("PublishedPosts")) sent.push(r.headers().authorization);
    });
    await page.goto(`${server.url}/graphiql`);
    await expect.poll(async () => page.locator(".graphiql-query-editor").innerText(), { timeout: 20_000 }).toContain("query PublishedPosts");
    expect(
      [...encodings.values()].every((e) => e === "br"),
      JSON.stringify([...encodings]),
    ).toBe(true);

    await page.locator(".graphiql-execute-button").click();
    await expect.poll(async () => page.locator(".result-window").innerText(), { timeout: 20_000 }).toContain('"slug": "graphiql-seen"');
    expect(sent).toEqual([undefined]);

    // The headers editor is open (defaultEditorToolsVisibility): paste a token into it, run again.
    const headers = page.locator(".graphiql-editor-tool .graphiql-editor").last();
    await headers.click();
    await page.keyboard.type('{"Authorization": "Bearer pasted-token"');
    await page.locator(".graphiql-execute-button").click();
    await expect.poll(() => sent.length, { timeout: 20_000 }).toBe(2);
    expect(sent[1]).toBe("Bearer pasted-token");
    await context.close();
  });
});
