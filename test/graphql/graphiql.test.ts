import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphiqlHandler, serveGraphiQL } from "../../lib/graphql/graphiql.ts";
import { blog } from "../support/blog.ts";
import { call, httpEvent, lambdaContext } from "../support/http-events.ts";
import { serveHandlers } from "./serve.ts";
import { graphqlBlog } from "./support.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const app = blog();
const graphiql = graphiqlHandler(app);

describe("GraphiQL page", () => {
  it("is served as HTML with its assets from npm, and hidden when not exposed", async () => {
    const page = await raw(httpEvent("GET", "/graphiql"));
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain('<script src="graphiql/graphiql.js">');
    const script = await raw(httpEvent("GET", "/graphiql/graphiql.js"));
    expect(script.statusCode).toBe(200);
    expect(script.body.length).toBeGreaterThan(1_000_000);
    expect((await call(graphiql, httpEvent("GET", "/graphiql/../../etc/passwd"))).statusCode).toBe(404);
    expect(serveGraphiQL({ ...httpEventRequest("/graphiql") }, false).statusCode).toBe(404);
  });
});

async function raw(event: ReturnType<typeof httpEvent>) {
  return (await graphiql(event, lambdaContext())) as { statusCode: number; headers: Record<string, string>; body: string };
}

function httpEventRequest(path: string) {
  return { method: "GET", path, headers: {}, query: {}, cookies: [], body: undefined, requestId: "r", routeKey: "$default", sourceIp: undefined, payloadVersion: "2.0" as const };
}

describe.skipIf(!existsSync(CHROMIUM))("GraphiQL in headless Chromium", () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof serveHandlers>>;

  beforeAll(async () => {
    const g = graphqlBlog({}, app);
    server = await serveHandlers([["/graphiql", graphiql], ["/graphql", g.handler]]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"],
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
  });
});
