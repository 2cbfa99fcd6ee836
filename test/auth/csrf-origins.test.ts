import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { definition } from "../fixtures/blog/index.ts";
import { restCache } from "../../lib/cli/cache.ts";
import { Application } from "../../lib/core/application.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";
import { inProcess } from "../support/parts.ts";

/**
 * The CSRF check of cookie-authenticated writes (lib/http/origin.ts, docs/authentication.md): the
 * Origin, or lacking one the Referer's origin, must be the API's own or one of `rest.corsOrigins`,
 * compared as whole origins (scheme, host and port). Driven through the REST face and the auth
 * routes with a real cookie session.
 */
const OWN = "https://api.example.com";
const ALLOWED = "https://app.example.com";

async function signedIn() {
  const t = emailApp(
    { verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } },
    {},
    { rest: { corsOrigins: [ALLOWED] } },
  );
  const browser = client(t);
  expect((await browser.request("POST", "/auth/email/register", { body: { email: newEmail(), password: PASSWORD, user: profile() } })).status).toBe(200);
  /** A cookie-authenticated REST write (a new tag) with exactly these headers. */
  const write = (headers: Record<string, string>) =>
    browser.request("POST", "/tags", {
      headers: { origin: "", ...headers },
      body: { slug: `t-${randomUUID().slice(0, 8)}`, name: "T", description: "", color: "#000000" },
    });
  return { t, browser, write };
}

describe("the Referer fallback of the CSRF check", () => {
  it("accepts a write without Origin whose Referer is the API's own page or an allowed origin's, and refuses any other", async () => {
    const { browser, write } = await signedIn();
    expect((await write({ referer: `${OWN}/posts/new?draft=1` })).status).toBe(200);
    expect((await write({ referer: `${ALLOWED}/editor` })).status).toBe(200);
    for (const referer of ["https://evil.example/page", `http://api.example.com/page`, "https://api.example.com.evil.example/", "not a url", ""]) {
      expect(await write({ referer })).toMatchObject({ status: 403, body: { reason: "ORIGIN_REFUSED" } });
    }
    // The Referer is only a fallback: a foreign Origin is refused whatever the Referer says.
    expect(await write({ origin: "https://evil.example", referer: `${OWN}/page` })).toMatchObject({ status: 403, body: { reason: "ORIGIN_REFUSED" } });
    // The auth routes run the same check.
    expect((await browser.request("POST", "/auth/logout", { headers: { origin: "", referer: "https://evil.example/" } })).status).toBe(403);
    expect((await browser.request("POST", "/auth/logout", { headers: { origin: "", referer: `${OWN}/account` } })).status).toBe(204);
  });
});

describe("Origin: null", () => {
  it("is a foreign origin for cookie writes: a same-origin Referer beside it does not rescue the write", async () => {
    const { browser, write } = await signedIn();
    // Sandboxed frames, cross-site redirects and file: pages send `Origin: null`.
    for (const origin of ["null", "file:///home/alice/page.html", "data:text/html,x"]) {
      for (const referer of [`${OWN}/posts/new`, `${ALLOWED}/editor`]) {
        expect(await write({ origin, referer })).toMatchObject({ status: 403, body: { reason: "ORIGIN_REFUSED" } });
      }
    }
    expect((await browser.request("POST", "/auth/logout", { headers: { origin: "null", referer: `${OWN}/account` } })).status).toBe(403);
    // The same write without an Origin still falls back to that Referer.
    expect((await write({ referer: `${OWN}/posts/new` })).status).toBe(200);
  });
});

describe("rest.corsOrigins", () => {
  it("lets cookie writes come from a listed origin and refuses every other origin, however close", async () => {
    const { write } = await signedIn();
    expect((await write({ origin: ALLOWED })).status).toBe(200);
    expect((await write({ origin: OWN })).status).toBe(200);
    for (const origin of [
      "https://evil.example",
      "http://app.example.com",
      "https://app.example.com:8443",
      "https://app.example.com.evil.example",
      "https://evil-app.example.com",
      "null",
    ]) {
      expect(await write({ origin })).toMatchObject({ status: 403, body: { reason: "ORIGIN_REFUSED" } });
    }
  });

  it("allows nothing beyond the API's own origin when it is not set", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const browser = client(t);
    await browser.request("POST", "/auth/email/register", { body: { email: newEmail(), password: PASSWORD, user: profile() } });
    const tag = (origin: string) =>
      browser.request("POST", "/tags", { headers: { origin }, body: { slug: `t-${randomUUID().slice(0, 8)}`, name: "T", description: "", color: "#000000" } });
    expect((await tag(ALLOWED)).status).toBe(403);
    expect((await tag(OWN)).status).toBe(200);
  });

  it("is what the packaged HTTP API declares to API Gateway: exactly the listed origins, and no CORS when unset", async () => {
    const declared = async (corsOrigins?: string[]) =>
      JSON.parse(
        (await restCache(new Application({ ...definition, ...(corsOrigins ? { rest: { ...definition.rest, corsOrigins } } : {}) }, inProcess)))[
          "http-api.json"
        ] as string,
      ) as { cors?: { allowedOrigins: string[] } };
    expect((await declared([ALLOWED])).cors?.allowedOrigins).toEqual([ALLOWED]);
    expect((await declared()).cors).toBeUndefined();
  });
});
