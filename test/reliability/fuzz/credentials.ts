import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { base64url, calculateJwkThumbprint, importJWK, SignJWT, type JWK } from "jose";
import { SEED, type FuzzRequest, type GraphqlRequest, type RestRequest } from "./inputs.ts";

/**
 * Real credentials of one account registered through `npm start` (the sample's `before` mode, the
 * link read from the local outbox), and the same account's credentials after logout: the invalid
 * JWT and cookie classes forge, tamper with and replay these. The live ones are the oracle's
 * control: they must still work after the run, so "everything refused" cannot pass by accident.
 */
export interface Credentials {
  user: string;
  accessToken: string;
  cookie: string;
  /** The cookie and access token of a second login, ended by logout before the run. */
  loggedOutCookie: string;
  loggedOutAccessToken: string;
  refreshToken: string;
  claims: { iss: string; aud: string; sub: string; sid: string };
  /** `npm start`'s own signing key (the test run's AUTH_SIGNING_KEY, which offline inherits): signatures that verify, on claims that must not. */
  signingJwk: JWK;
}

const PASSWORD = "fuzz correct horse battery";

function cookieOf(response: Response): string {
  const pair = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] as string)
    .find((c) => c.startsWith("session="));
  if (!pair) throw new Error(`no session cookie in ${response.status} ${response.headers.getSetCookie().join(" | ")}`);
  return pair.slice("session=".length);
}

export async function obtainCredentials(base: string, projectDir: string): Promise<Credentials> {
  const origin = new URL(base).origin;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin, ...headers },
      body: JSON.stringify(body),
      redirect: "manual",
    });
  const email = `fuzz-${randomBytes(4).toString("hex")}@example.com`;
  if ((await post("/auth/email/register", { email })).status !== 202) throw new Error("registration did not start");
  const outbox = join(projectDir, ".data", "outbox");
  let link: URL | undefined;
  for (let i = 0; i < 300 && !link; i++) {
    const files = (() => {
      try {
        return readdirSync(outbox);
      } catch {
        return [];
      }
    })();
    const mail = files.map((f) => JSON.parse(readFileSync(join(outbox, f), "utf8")) as { to: string; text: string }).find((m) => m.to === email);
    const found = mail && /https?:\/\/\S+/.exec(mail.text)?.[0];
    if (found) link = new URL(found);
    else await sleep(100);
  }
  if (!link) throw new Error(`no registration mail for ${email} in ${outbox}`);
  const hop = await fetch(`${base}${link.pathname}${link.search}`, { redirect: "manual" });
  const token = new URL(hop.headers.get("location") ?? "http://x/").searchParams.get("token");
  const done = await post("/auth/email/register", {
    email,
    password: PASSWORD,
    user: { username: `fuzz${randomBytes(3).toString("hex")}`, name: "Fuzz Victim" },
    token,
  });
  if (done.status !== 200) throw new Error(`registration: ${done.status} ${await done.text()}`);
  const registered = (await done.json()) as { access_token: string; refresh_token: string; user: { uuid: string } };
  const cookie = cookieOf(done);

  const second = await post("/auth/email/login", { email, password: PASSWORD });
  if (second.status !== 200) throw new Error(`login: ${second.status} ${await second.text()}`);
  const loggedOutCookie = cookieOf(second);
  const loggedOutAccessToken = ((await second.json()) as { access_token: string }).access_token;
  const out = await fetch(`${base}/auth/logout`, { method: "POST", headers: { origin, cookie: `session=${loggedOutCookie}` } });
  if (out.status >= 300) throw new Error(`logout: ${out.status} ${await out.text()}`);

  const claims = JSON.parse(Buffer.from(registered.access_token.split(".")[1] as string, "base64url").toString()) as Credentials["claims"];
  const signingJwk = JSON.parse(process.env.AUTH_SIGNING_KEY ?? readFileSync(join(projectDir, ".data", "auth-signing-key.json"), "utf8")) as JWK;
  return {
    user: registered.user.uuid,
    accessToken: registered.access_token,
    cookie,
    loggedOutCookie,
    loggedOutAccessToken,
    refreshToken: registered.refresh_token,
    claims,
    signingJwk,
  };
}

const b64json = (value: unknown): string => base64url.encode(JSON.stringify(value));

/** Tokens that must all be refused: each names the attack it stands for. */
export async function forgedTokens(c: Credentials): Promise<{ attack: string; token: string }[]> {
  const key = await importJWK(c.signingJwk, "EdDSA");
  const { d: _private, ...publicJwk } = c.signingJwk;
  const kid = c.signingJwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  const now = Math.floor(Date.now() / 1000);
  const good = { ...c.claims, jti: "fuzz", iat: now, exp: now + 900 };
  const header = { alg: "EdDSA", kid, typ: "at+jwt" };
  const sign = (payload: Record<string, unknown>, protectedHeader: Record<string, unknown> = header) =>
    new SignJWT(payload).setProtectedHeader(protectedHeader as { alg: string }).sign(key);
  const [, payload, signature] = c.accessToken.split(".") as [string, string, string];
  const attacker = generateKeyPairSync("ed25519");
  const attackerJwk = attacker.publicKey.export({ format: "jwk" });
  const attackerKey = await importJWK(attacker.privateKey.export({ format: "jwk" }) as JWK, "EdDSA");
  const hmac = async (secret: Uint8Array, h: Record<string, unknown> = { alg: "HS256", kid, typ: "at+jwt" }) =>
    new SignJWT(good).setProtectedHeader(h as { alg: string }).sign(secret);
  const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === "A" ? "B" : "A"}${s.slice(i + 1)}`;
  const { sub: _sub, ...withoutSub } = good;
  const { sid: _sid, ...withoutSid } = good;
  return [
    { attack: "alg none", token: `${b64json({ alg: "none", typ: "at+jwt" })}.${payload}.` },
    { attack: "alg none, signature kept", token: `${b64json({ alg: "none", typ: "at+jwt", kid })}.${payload}.${signature}` },
    { attack: "alg NONE", token: `${b64json({ alg: "NONE" })}.${payload}.` },
    { attack: "HS256 keyed with the public x", token: await hmac(Buffer.from(publicJwk.x as string, "base64url")) },
    { attack: "HS256 keyed with the public JWK text", token: await hmac(new TextEncoder().encode(JSON.stringify(publicJwk))) },
    { attack: "HS256 keyed with the JWKS text", token: await hmac(new TextEncoder().encode(JSON.stringify({ keys: [publicJwk] }))) },
    { attack: "HS512 keyed with the public x", token: await hmac(Buffer.from(publicJwk.x as string, "base64url"), { alg: "HS512", kid, typ: "at+jwt" }) },
    {
      attack: "embedded attacker jwk",
      token: await new SignJWT(good).setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", jwk: attackerJwk as JWK }).sign(attackerKey),
    },
    {
      attack: "jku to an attacker's set",
      token: await new SignJWT(good)
        .setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", jku: "http://127.0.0.1:9/jwks.json" } as { alg: string })
        .sign(attackerKey),
    },
    { attack: "attacker key under our kid", token: await new SignJWT(good).setProtectedHeader(header).sign(attackerKey) },
    { attack: "kid path traversal", token: await sign(good, { ...header, kid: "../../../../dev/null" }) },
    { attack: "kid injection", token: await sign(good, { ...header, kid: "' OR '1'='1" }) },
    { attack: "kid unknown", token: await sign(good, { ...header, kid: "unknown-kid" }) },
    // Under API Gateway's 10 KB of headers (and Node's 16 KB), so our handler is the one to refuse it.
    { attack: "kid huge", token: await sign(good, { ...header, kid: "k".repeat(5_000) }) },
    { attack: "kid not a string", token: await sign(good, { ...header, kid: { $ne: null } }) },
    { attack: "expired", token: await sign({ ...good, iat: now - 3600, exp: now - 1800 }) },
    { attack: "not yet valid", token: await sign({ ...good, nbf: now + 3600 }) },
    { attack: "wrong audience", token: await sign({ ...good, aud: "someone-else" }) },
    { attack: "audience list without ours", token: await sign({ ...good, aud: ["a", "b"] }) },
    { attack: "wrong issuer", token: await sign({ ...good, iss: "https://evil.example" }) },
    { attack: "wrong typ", token: await sign(good, { ...header, typ: "JWT" }) },
    { attack: "no sub", token: await sign(withoutSub) },
    { attack: "no sid", token: await sign(withoutSid) },
    { attack: "session that does not exist", token: await sign({ ...good, sid: "0".repeat(64) }) },
    { attack: "another user on this session", token: await sign({ ...good, sub: "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0001" }) },
    { attack: "sub not a string", token: await sign({ ...good, sub: 1 }) },
    { attack: "exp not a number", token: await sign({ ...good, exp: "never" }) },
    // Not here: a token of a logged-out session, which stays valid until it expires by design (spec
    // 5.4.9: logout ends the cookie and the refresh family, not access tokens). Replay after logout
    // is the cookie class's: the logged-out cookie must be refused.
    {
      attack: "signature of another token",
      token: `${c.accessToken.split(".").slice(0, 2).join(".")}.${(await sign({ ...good, jti: "other" })).split(".")[2]}`,
    },
    {
      attack: "payload swapped under a valid signature",
      token: `${c.accessToken.split(".")[0]}.${b64json({ ...good, sub: "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0001" })}.${signature}`,
    },
    { attack: "signature bit flipped", token: `${c.accessToken.split(".").slice(0, 2).join(".")}.${flip(signature, 5)}` },
    { attack: "signature truncated", token: c.accessToken.slice(0, -4) },
    { attack: "refresh token as access token", token: c.refreshToken },
  ];
}

/** Where an invalid credential is tried: each answer must be anonymous (no user) or a refusal. */
const targets: { method: string; path: string; body?: string }[] = [
  { method: "GET", path: "/auth/me" },
  { method: "GET", path: "/auth/idents" },
  { method: "POST", path: "/posts", body: JSON.stringify({ slug: "fz-auth", title: "t", content: "c", status: "draft", viewCount: 1 }) },
  { method: "PATCH", path: `/posts/${SEED.post}`, body: JSON.stringify({ title: "taken over" }) },
  { method: "POST", path: "/auth/password/change", body: JSON.stringify({ currentPassword: PASSWORD, password: "fuzz new password 123" }) },
];
const graphqlMutation = JSON.stringify({
  query: 'mutation { createPost(Post: { slug: "fz-auth-gql", title: "t", content: "c", status: "draft", viewCount: 1 }) { slug } }',
});

const garbage = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.base64String({ maxLength: 300 }),
  fc.tuple(fc.base64String({ maxLength: 60 }), fc.base64String({ maxLength: 200 }), fc.base64String({ maxLength: 90 })).map((p) => p.join(".")),
  fc.constantFrom("", ".", "..", "...", "a.b.c", "e30.e30.", "null", "undefined", "x".repeat(9000)),
);

/** `Authorization` values: the forged tokens (and garbage) under the scheme's spellings. */
function authorization(tokens: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.oneof(fc.constantFrom(...tokens), garbage), fc.constantFrom("Bearer ", "bearer ", "BEARER  ", "Bearer", "Basic ", "Token ", ""))
    .map(([t, scheme]) => `${scheme}${t}`.replace(/[^\x20-\x7e]/g, ""));
}

/** Cookie values: the logged-out one replayed, and the live one tampered with. */
function sessionCookies(c: Credentials): fc.Arbitrary<string> {
  const live = c.cookie;
  return fc.oneof(
    fc.constant(`session=${c.loggedOutCookie}`),
    fc.nat(live.length - 1).map((i) => `session=${live.slice(0, i)}${live[i] === "A" ? "B" : "A"}${live.slice(i + 1)}`),
    fc.nat(live.length - 1).map((i) => `session=${live.slice(0, i)}`),
    fc.constantFrom(
      `session=${live}x`,
      `session=${live.toUpperCase()}`,
      `session=${encodeURIComponent(`${live};`)}`,
      "session=",
      "session",
      "session=%",
      "session=%E0%A4%A",
      `session=${live}%zz`,
      `Session=${live}`,
      `session=${c.accessToken}`,
      `session=${c.refreshToken}`,
    ),
    garbage.map((g) => `session=${encodeURIComponent(g)}`),
    fc
      .tuple(fc.constantFrom("session", "sid", "__Host-session", "__proto__"), garbage)
      .map(([n, g]) => `${n}=${encodeURIComponent(g)}; session=${c.loggedOutCookie}`),
  );
}

function aimed(header: Record<string, string>, target: number, c: Credentials, origin: string): FuzzRequest {
  // The API's own Origin: CSRF is tested elsewhere; here only the credential decides.
  const headers = { "content-type": "application/json", origin, ...header };
  if (target >= targets.length) return { kind: "graphql", body: graphqlMutation, headers, refuseUser: c.user } satisfies GraphqlRequest;
  const t = targets[target] as (typeof targets)[number];
  return { kind: "rest", method: t.method, path: t.path, headers, ...(t.body ? { body: t.body } : {}), refuseUser: c.user } satisfies RestRequest;
}

export function credentialClasses(tokens: string[], c: Credentials, origin: string): Record<string, fc.Arbitrary<FuzzRequest>> {
  const target = fc.nat(targets.length);
  return {
    "invalid JWTs (none, HS/RS confusion, kid tricks, expired, wrong aud/iss, garbage)": fc
      .tuple(authorization(tokens), target, fc.boolean())
      .map(([value, t, withCookie]) =>
        // With the live cookie beside it: a refused bearer must not fall back to the cookie's user
        // (an empty Authorization is no bearer at all, so the cookie would rightly count).
        aimed({ authorization: value, ...(withCookie && value.trim() !== "" ? { cookie: `session=${c.cookie}` } : {}) }, t, c, origin),
      ),
    "tampered and replayed cookies": fc.tuple(sessionCookies(c), target).map(([cookie, t]) => aimed({ cookie }, t, c, origin)),
  };
}
