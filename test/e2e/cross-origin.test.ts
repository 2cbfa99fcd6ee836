import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { gatewayCors, type HttpApiCors } from "../../lib/local/offline-cors.mjs";
import { OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { waitForStoredSubscriptions } from "../support/stored-subscriptions.ts";

/**
 * Two cross-origin attacks (7: the WebSocket handshake, 8: HTTP reads), replayed against `npm start` (the seeded sample blog) as a page on
 * another origin would: Alice is signed in (session cookie); the attacker's page sends her cookie
 * with its own Origin. 7: a WebSocket handshake must not act for her. 8: HTTP answers must carry
 * exactly the CORS headers the packaged API declares (schema-cache/http-api.json, which
 * serverless.yml includes as `provider.httpApi`): for the sample, none.
 */

const WS_URL = `ws://127.0.0.1:${OFFLINE_PORTS.websocket}`;
const FOREIGN = "http://127.0.0.1:8080";
const DRAFT = "streams-notes";
const HTTP_API = JSON.parse(readFileSync(new URL("../../schema-cache/http-api.json", import.meta.url), "utf8")) as { cors?: HttpApiCors };
let offline: Offline | undefined;
let cookie = "";
const clients: Client[] = [];

beforeAll(async () => {
  offline = await startOffline({ args: [] });
  const login = await fetch(`${offline.url}/auth/email/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: offline.url },
    body: JSON.stringify({ email: "alice@example.com", password: "alice-demo-password" }),
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
  cookie = (login.headers.getSetCookie()[0] as string).split(";")[0] as string;
}, 400_000);

afterAll(async () => {
  for (const client of clients) client.terminate();
  await offline?.stop();
}, 60_000);

const corsOf = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => name.startsWith("access-control-")));

describe("npm start answers CORS as the packaged API declares (attack 8)", { timeout: 120_000 }, () => {
  it("sends a foreign page reading /auth/me or GET /graphql with Alice's cookie no CORS header, preflight or not", async () => {
    for (const path of ["/auth/me", `/graphql?query=${encodeURIComponent("{ me { uuid email } }")}`]) {
      const actual = await fetch(`${offline?.url}${path}`, { headers: { origin: FOREIGN, cookie } });
      expect(actual.status).toBe(200);
      expect(await actual.text()).toContain("alice@example.com"); // the cookie worked: only CORS keeps the page out
      expect(corsOf(actual.headers)).toEqual(gatewayCors(HTTP_API.cors, { method: "GET", origin: FOREIGN, requestMethod: undefined }).headers);
      expect(corsOf(actual.headers)).toEqual({});
      const preflight = await fetch(`${offline?.url}${path}`, {
        method: "OPTIONS",
        headers: { origin: FOREIGN, "access-control-request-method": "GET", "access-control-request-headers": "content-type" },
      });
      expect(corsOf(preflight.headers)).toEqual(gatewayCors(HTTP_API.cors, { method: "OPTIONS", origin: FOREIGN, requestMethod: "GET" }).headers);
      expect(corsOf(preflight.headers)).toEqual({});
    }
  });
});

/** A graphql-ws client whose handshake carries these headers, as a browser page would send them. */
function socket(headers: Record<string, string>): Client {
  class WithHeaders extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const client = createClient({ url: WS_URL, webSocketImpl: WithHeaders, retryAttempts: 0, lazy: true });
  clients.push(client);
  return client;
}

// Named for this run, so that its stored rows can be counted.
const WATCH = `subscription Draft_${randomUUID().replace(/-/g, "_")} { Post(slug: "${DRAFT}") { slug content } }`;

function watch(client: Client): { data: unknown[]; errors: unknown[] } {
  const feed = { data: [] as unknown[], errors: [] as unknown[] };
  client.subscribe(
    { query: WATCH },
    {
      next: (value) => feed.data.push(value.data),
      error: (error) => feed.errors.push(error),
      complete: () => undefined,
    },
  );
  return feed;
}

describe("a WebSocket handshake with Alice's cookie from a foreign Origin is anonymous (attack 7)", { timeout: 120_000 }, () => {
  it("does not deliver Alice's draft to it, while her own page's socket gets it", async () => {
    const evil = watch(socket({ cookie, origin: "http://evil.example" }));
    // A sandboxed frame sends `Origin: null`, and its Referer may well be Alice's own page.
    const opaque = watch(socket({ cookie, origin: "null", referer: `${WS_URL.replace("ws:", "http:")}/app` }));
    const own = watch(socket({ cookie, origin: WS_URL.replace("ws:", "http:") }));
    // All three subscriptions stored before the write (the first handshake is a cold start).
    await waitForStoredSubscriptions(offline as Offline, WATCH, 3);
    const secret = `secret-${randomUUID()}`;
    const patched = await fetch(`${offline?.url}/posts/${DRAFT}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", origin: offline?.url as string, cookie },
      body: JSON.stringify({ content: secret }),
    });
    expect(patched.status).toBe(200);
    for (let i = 0; i < 100 && !JSON.stringify(own.data).includes(secret); i++) await sleep(200);
    expect(JSON.stringify(own.data)).toContain(secret);
    // The same fan-out posted to both sockets: a margin for the evil one's frame, then nothing there.
    await sleep(1_500);
    expect(JSON.stringify(evil)).not.toContain(secret);
    expect(evil.errors).toEqual([]);
    expect(JSON.stringify(opaque)).not.toContain(secret);
    expect(opaque.errors).toEqual([]);
  });
});

describe("a cookie write from Origin: null is refused whatever its Referer", { timeout: 120_000 }, () => {
  it("answers 403 ORIGIN_REFUSED to Alice's cookie with Origin: null and her own page as Referer, and changes nothing", async () => {
    const write = (origin: string) =>
      fetch(`${offline?.url}/posts/${DRAFT}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", origin, referer: `${offline?.url}/posts/${DRAFT}`, cookie },
        body: JSON.stringify({ content: "from a sandboxed frame" }),
      });
    const refused = await write("null");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ reason: "ORIGIN_REFUSED" });
    const read = await fetch(`${offline?.url}/posts/${DRAFT}`, { headers: { cookie } });
    expect(JSON.stringify(await read.json())).not.toContain("from a sandboxed frame");
  });
});
