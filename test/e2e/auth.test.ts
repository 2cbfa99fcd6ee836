import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "graphql-ws";
import { base64url, importJWK, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";

/**
 * The authentication flows against `npm start` (serverless offline + DynamoDB Local), with fetch
 * and a cookie jar, reading mails from the outbox. The sample app's provider runs in `before`
 * mode; the other modes and options are covered in test/auth/ on DynamoDB Local.
 */
const OUTBOX = join(fileURLToPath(new URL("../..", import.meta.url)), ".data", "outbox");
const WS_URL = "ws://127.0.0.1:3001";
const PASSWORD = "correct horse battery";
let offline: Offline | undefined;
const sockets: Client[] = [];

beforeAll(async () => {
  offline = await sharedOffline();
}, 400_000);

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await offline?.stop();
}, 60_000);

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

class Browser {
  readonly jar = new Map<string, string>();

  async fetch(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { origin: offline?.url as string, ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await fetch(`${offline?.url}${path}`, {
      method,
      headers,
      redirect: "manual",
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [name, value] = (cookie.split(";")[0] as string).split("=") as [string, string];
      if (/Max-Age=0/i.test(cookie)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
  }
}

const email = () => `e2e-${randomUUID().slice(0, 8)}@example.com`;
const profile = { username: "e2e-user", name: "E2E User" };

function mails(to: string): { subject: string; text: string }[] {
  let files: string[];
  try {
    files = readdirSync(OUTBOX).sort();
  } catch {
    return [];
  }
  return files.map((f) => JSON.parse(readFileSync(join(OUTBOX, f), "utf8")) as { to: string; subject: string; text: string }).filter((m) => m.to === to);
}

async function waitForMail(to: string, count = 1): Promise<{ subject: string; text: string }[]> {
  for (let i = 0; i < 100; i++) {
    const found = mails(to);
    if (found.length >= count) return found;
    await sleep(100);
  }
  throw new Error(`no mail for ${to} in ${OUTBOX}`);
}

const linkOf = (mail: { text: string } | undefined) => new URL(/https?:\/\/\S+/.exec(mail?.text ?? "")?.[0] as string);

async function register(browser: Browser, address: string): Promise<{ access_token: string; refresh_token: string; user: { uuid: string } }> {
  expect((await browser.fetch("POST", "/auth/email/register", { body: { email: address } })).status).toBe(202);
  const link = linkOf((await waitForMail(address))[0]);
  const hop = await browser.fetch("GET", `${link.pathname}${link.search}`);
  expect(hop.status).toBe(302);
  const token = new URL(hop.headers.get("location") as string).searchParams.get("token") as string;
  const done = await browser.fetch("POST", "/auth/email/register", { body: { email: address, password: PASSWORD, user: profile, token } });
  expect(done.status).toBe(200);
  return done.body as { access_token: string; refresh_token: string; user: { uuid: string } };
}

const me = async (browser: Browser, headers: Record<string, string> = {}) =>
  (await browser.fetch("GET", "/auth/me", { headers })).body as { uuid?: string } | null;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// Each function's first call under offline is a cold start (esbuild bundle, module init).
describe("authentication against npm start", { timeout: 120_000 }, () => {
  it("registers (before mode), logs in, and answers me over REST and GraphQL", async () => {
    const browser = new Browser();
    const address = email();
    const registered = await register(browser, address);
    expect(registered).toMatchObject({ token_type: "Bearer", user: { email: address } });
    expect(browser.jar.get("session")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await me(browser))?.uuid).toBe(registered.user.uuid);
    const again = await new Browser().fetch("POST", "/auth/email/register", {
      body: {
        email: address,
        password: PASSWORD,
        user: profile,
        token: new URL(
          (await browser.fetch("GET", `${linkOf(mails(address)[0]).pathname}${linkOf(mails(address)[0]).search}`)).headers.get("location") as string,
        ).searchParams.get("token"),
      },
    });
    expect(again).toMatchObject({ status: 409, body: { reason: "ACCOUNT_EXISTS" } });

    const login = await new Browser().fetch("POST", "/auth/email/login", { body: { email: address.toUpperCase(), password: PASSWORD } });
    expect(login.status).toBe(200);
    const { access_token } = login.body as { access_token: string };
    const graphql = async (headers: Record<string, string>) =>
      (await new Browser().fetch("POST", "/graphql", { body: { query: "{ me { uuid email } }" }, headers })).body as { data: { me: { uuid: string } | null } };
    expect((await graphql(bearer(access_token))).data.me?.uuid).toBe(registered.user.uuid);
    expect((await graphql({})).data.me).toBeNull();
    expect(await me(new Browser())).toBeNull();
    // Bearer wins over the cookie: a bad token with a good cookie is anonymous.
    expect(await me(browser, bearer("not-a-token"))).toBeNull();
  });

  it("rotates refresh tokens, gives concurrent uses one pair, and revokes the family on a late reuse", async () => {
    const browser = new Browser();
    const first = await register(browser, email());
    const refresh = (token: string) => new Browser().fetch("POST", "/auth/refresh", { body: { refresh_token: token } });
    const rotated = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token), refresh(first.refresh_token)]);
    expect(rotated.map((r) => r.status)).toEqual([200, 200, 200]);
    const pairs = new Set(
      rotated.map((r) => JSON.stringify([(r.body as { access_token: string }).access_token, (r.body as { refresh_token: string }).refresh_token])),
    );
    expect(pairs.size).toBe(1);
    const second = rotated[0]?.body as { access_token: string; refresh_token: string };
    expect((await me(new Browser(), bearer(second.access_token)))?.uuid).toBe(first.user.uuid);
    const third = (await refresh(second.refresh_token)).body as { refresh_token: string; access_token: string };
    // Outside the reuse interval (10 s), a used token revokes the family: no condition to wait for.
    await sleep(10_500);
    expect(await refresh(first.refresh_token)).toMatchObject({ status: 401, body: { reason: "REFRESH_TOKEN_REUSED" } });
    expect(await refresh(third.refresh_token)).toMatchObject({ status: 401, body: { reason: "INVALID_REFRESH_TOKEN" } });
    expect(await me(new Browser(), bearer(third.access_token))).toBeNull();
    expect(await me(browser)).toBeNull();
  });

  it("logs out: the cookie and refresh token end, the access token lives on", async () => {
    const browser = new Browser();
    const login = await register(browser, email());
    const out = await browser.fetch("POST", "/auth/logout");
    expect(out.status).toBe(204);
    expect(browser.jar.has("session")).toBe(false);
    expect((await me(new Browser(), bearer(login.access_token)))?.uuid).toBe(login.user.uuid);
    expect((await new Browser().fetch("POST", "/auth/refresh", { body: { refresh_token: login.refresh_token } })).status).toBe(401);
  });

  it("recovers a password: same answer for unknown emails, one mail per resendDelay, every earlier credential ends", async () => {
    const browser = new Browser();
    const address = email();
    const login = await register(browser, address);
    // Forged Host and X-Forwarded-Proto: the link still points at npm start, never where the caller says.
    const forged = { host: "evil.example:8080", "x-forwarded-proto": "https://evil.example/#", "x-forwarded-host": "evil.example" };
    const known = await new Browser().fetch("POST", "/auth/password/recovery", { body: { email: address }, headers: forged });
    const unknown = await new Browser().fetch("POST", "/auth/password/recovery", { body: { email: email() }, headers: forged });
    expect([known.status, unknown.status]).toEqual([202, 202]);
    expect(known.body).toEqual(unknown.body);
    // The registration mail went out just now, but recovery is another kind of mail with a slot
    // of its own: its mail goes at once (docs/authentication.md, "Mail limits").
    const resets = (await waitForMail(address, 2)).filter((m) => m.text.includes("/recover?token="));
    expect(resets).toHaveLength(1);
    // Asked again within resendDelay (10 s here): still one mail; its link redirects to the recover page with the same token.
    expect((await new Browser().fetch("POST", "/auth/password/recovery", { body: { email: address } })).status).toBe(202);
    expect(mails(address).filter((m) => m.text.includes("/recover?token="))).toHaveLength(1);
    const link = linkOf(resets[0]);
    expect(link.origin).toBe(offline?.url);
    expect(link.pathname).toBe("/auth/email/recover");
    const hop = await new Browser().fetch("GET", `${link.pathname}${link.search}`);
    expect(hop.status).toBe(302);
    const token = new URL(hop.headers.get("location") as string).searchParams.get("token") as string;
    expect(token).toBe(link.searchParams.get("token"));
    const recovered = await new Browser().fetch("POST", "/auth/password/recover", { body: { token, password: "a brand new passphrase" } });
    expect(recovered.status).toBe(200);
    expect(await me(browser)).toBeNull();
    expect(await me(new Browser(), bearer(login.access_token))).toBeNull();
    expect((await new Browser().fetch("POST", "/auth/refresh", { body: { refresh_token: login.refresh_token } })).status).toBe(401);
    expect((await new Browser().fetch("POST", "/auth/email/login", { body: { email: address, password: "a brand new passphrase" } })).status).toBe(200);
  });

  it("changes a password: other sessions and earlier access tokens end", async () => {
    const laptop = new Browser();
    const address = email();
    const first = await register(laptop, address);
    const phone = new Browser();
    expect((await phone.fetch("POST", "/auth/email/login", { body: { email: address, password: PASSWORD } })).status).toBe(200);
    const changed = await laptop.fetch("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a different passphrase" } });
    expect(changed.status).toBe(200);
    expect(await me(phone)).toBeNull();
    expect(await me(new Browser(), bearer(first.access_token))).toBeNull();
    expect((await me(laptop))?.uuid).toBe(first.user.uuid);
  });

  it("delays, then locks out failed logins with Retry-After", async () => {
    const address = email();
    await register(new Browser(), address);
    const attempt = () => new Browser().fetch("POST", "/auth/email/login", { body: { email: address, password: "wrong password" } });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    // The sample app: 3 failures, then 1 s doubling, then locked after 5.
    let reply = await attempt();
    let failures = 3;
    while (failures < 5) {
      if (reply.status === 429) {
        expect(reply.body).toMatchObject({ reason: "TOO_MANY_ATTEMPTS" });
        await sleep(Number(reply.headers.get("retry-after")) * 1000);
      } else {
        expect(reply.status).toBe(401);
        failures++;
      }
      if (failures < 5) reply = await attempt();
    }
    const locked = await new Browser().fetch("POST", "/auth/email/login", { body: { email: address, password: PASSWORD } });
    expect(locked).toMatchObject({ status: 429, body: { reason: "LOCKED_OUT" } });
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
  });

  it("treats forged and foreign access tokens as anonymous", async () => {
    const login = await register(new Browser(), email());
    const jwks = (await new Browser().fetch("GET", "/.well-known/jwks.json")).body as { keys: { x: string; kid: string; alg: string }[] };
    expect(jwks.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA" });
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    const claims = JSON.parse(Buffer.from(login.access_token.split(".")[1] as string, "base64url").toString()) as { sub: string; sid: string };
    const now = Math.floor(Date.now() / 1000);
    const build = (c: { iss?: string; aud?: string; iat?: number; exp?: number } = {}) =>
      new SignJWT({ sid: claims.sid })
        .setIssuer(c.iss ?? "blog")
        .setAudience(c.aud ?? "blog")
        .setSubject(claims.sub)
        .setJti(randomUUID())
        .setIssuedAt(c.iat ?? now)
        .setExpirationTime(c.exp ?? now + 600);
    const key = await importJWK(JSON.parse(process.env.AUTH_SIGNING_KEY as string) as Record<string, string>, "EdDSA");
    const header = { alg: "EdDSA", typ: "at+jwt", kid: jwks.keys[0]?.kid as string };
    const genuine = await build().setProtectedHeader(header).sign(key);
    expect((await me(new Browser(), bearer(genuine)))?.uuid).toBe(claims.sub);
    const attacks = [
      new UnsecuredJWT({ sid: claims.sid })
        .setIssuer("blog")
        .setAudience("blog")
        .setSubject(claims.sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .encode(),
      await build()
        .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
        .sign(base64url.decode(jwks.keys[0]?.x as string)),
      await build({ iat: now - 2000, exp: now - 1000 })
        .setProtectedHeader(header)
        .sign(key),
      await build({ iss: "https://evil.example" }).setProtectedHeader(header).sign(key),
      await build({ aud: "another-app" }).setProtectedHeader(header).sign(key),
    ];
    for (const token of attacks) expect(await me(new Browser(), bearer(token))).toBeNull();
  });

  it("refuses cookie-authenticated writes from a foreign Origin (REST, GraphQL, auth routes)", async () => {
    const browser = new Browser();
    await register(browser, email());
    const evil = { origin: "https://evil.example" };
    expect(await browser.fetch("POST", "/auth/logout", { headers: evil })).toMatchObject({ status: 403, body: { reason: "ORIGIN_REFUSED" } });
    expect(
      (
        await browser.fetch("POST", "/posts", {
          headers: evil,
          body: { slug: `csrf-${randomUUID().slice(0, 6)}`, title: "t", content: "c", status: "draft", viewCount: 0 },
        })
      ).status,
    ).toBe(403);
    const gql = await browser.fetch("POST", "/graphql", { headers: evil, body: { query: "{ me { uuid } }" } });
    expect(gql.status).toBe(403);
    expect((await me(browser))?.uuid).toEqual(expect.any(String));
  });

  it("authenticates a WebSocket subscription by access token", async () => {
    const browser = new Browser();
    const login = await register(browser, email());
    const slug = `ws-${randomUUID().slice(0, 8)}`;
    const socket = createClient({
      url: WS_URL,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${login.access_token}` },
      retryAttempts: 0,
      lazy: true,
    });
    sockets.push(socket);
    const seen: unknown[] = [];
    const errors: unknown[] = [];
    let connected = false;
    socket.on("connected", () => {
      connected = true;
    });
    socket.subscribe(
      { query: `subscription { Post(slug: "${slug}") { slug title author { uuid } } }` },
      { next: (v) => seen.push(v.data), error: (e) => errors.push(e), complete: () => undefined },
    );
    const write = (title: string, method = "PATCH") =>
      browser.fetch(method, method === "POST" ? "/posts" : `/posts/${slug}`, {
        headers: bearer(login.access_token),
        body: { slug, title, ...(method === "POST" ? { content: "c", status: "draft", viewCount: 0 } : {}) },
      });
    // Writes until one is delivered: the subscription row lands a moment after the ack, and the
    // stream delivers within a second or so; each write is a fresh event.
    let created = false;
    for (let i = 0; i < 60 && seen.length === 0 && errors.length === 0; i++) {
      await sleep(1000);
      if (!connected) continue;
      if (!created) created = (await write("Live", "POST")).status === 200;
      else await write(`Live ${i}`);
    }
    expect(errors).toEqual([]);
    // A draft is readable only by its author: the delivery proves the connection acts as that user.
    expect(seen[0]).toMatchObject({ Post: { slug, author: { uuid: login.user.uuid } } });
  });
});

// The attack: an attacker who knows the old password logs in back to back while the owner
// changes it (or recovers the account). Every session those logins opened must be dead afterwards.
describe("sessions of an old password against npm start", { timeout: 240_000 }, () => {
  async function raceLogins(address: string, password: string, act: () => Promise<Reply>): Promise<void> {
    let done = false;
    const opened: { browser: Browser; tokens: { access_token: string; refresh_token: string } }[] = [];
    const loop = async () => {
      while (!done) {
        const browser = new Browser();
        const login = await browser.fetch("POST", "/auth/email/login", { body: { email: address, password } });
        if (login.status === 200) opened.push({ browser, tokens: login.body as { access_token: string; refresh_token: string } });
        else expect([401, 429]).toContain(login.status);
      }
    };
    const loops = [loop(), loop(), loop()];
    for (let i = 0; i < 600 && opened.length < 3; i++) await sleep(50);
    const answer = await act();
    done = true;
    await Promise.all(loops);
    expect(answer.status).toBe(200);
    expect(opened.length).toBeGreaterThanOrEqual(3);
    for (const { browser, tokens } of opened) {
      expect(await me(browser)).toBeNull();
      expect(await me(new Browser(), bearer(tokens.access_token))).toBeNull();
      expect((await new Browser().fetch("POST", "/auth/refresh", { body: { refresh_token: tokens.refresh_token } })).status).toBe(401);
    }
  }

  it("ends every one of them at a password change, which answers 200, and at a recovery", async () => {
    const owner = new Browser();
    const address = email();
    await register(owner, address);
    await raceLogins(address, PASSWORD, () =>
      owner.fetch("POST", "/auth/password/change", { body: { password: PASSWORD, new_password: "a changed passphrase" } }),
    );
    expect((await me(owner))?.uuid).toEqual(expect.any(String));

    // The registration mail went first; recovery has a slot of its own, so its mail goes at once.
    expect((await new Browser().fetch("POST", "/auth/password/recovery", { body: { email: address } })).status).toBe(202);
    const token = linkOf((await waitForMail(address, 2))[1]).searchParams.get("token") as string;
    await raceLogins(address, "a changed passphrase", () =>
      new Browser().fetch("POST", "/auth/password/recover", { body: { token, password: "a recovered passphrase" } }),
    );
  });
});
