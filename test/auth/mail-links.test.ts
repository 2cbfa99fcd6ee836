import { afterEach, describe, expect, it, vi } from "vitest";
import { client, emailApp, linkIn, newEmail, PASSWORD, profile } from "./client.ts";

/**
 * The attack: links in mails built from the request's Host and X-Forwarded-Proto, so
 * `POST /auth/password/recovery` with `Host: evil.example:8080` mailed the victim a link that took
 * the token to the attacker. Through the real routes on DynamoDB Local, with the configuration
 * `npm start` has (PUBLIC_URL, its own listening origin; no publicUrl option), no header a caller
 * sends moves any mailed link.
 */
const OWN = "http://127.0.0.1:3000";
const FORGED: Record<string, string>[] = [
  { host: "evil.example:8080" },
  { host: "127.0.0.1:3000", "x-forwarded-proto": "https://evil.example/#" },
  { "x-forwarded-host": "evil.example", "x-forwarded-port": "443", "x-forwarded-proto": "https" },
  { forwarded: "for=1.2.3.4;host=evil.example;proto=https", origin: "https://evil.example" },
];

afterEach(() => {
  vi.unstubAllEnvs();
});

/**
 * An app without the publicUrl option, its links' base from PUBLIC_URL as under npm start; `tick`
 * moves its clock past the per-address resend delay, so each request mails.
 */
function localApp(options: Record<string, unknown>) {
  vi.stubEnv("PUBLIC_URL", OWN);
  const t = emailApp({ publicUrl: undefined, ...options });
  let now = Date.now();
  t.auth.now = () => now;
  return { ...t, tick: () => void (now += 61_000) };
}

describe("mailed links ignore request headers (attack 1)", () => {
  it("recovery: every forged Host / X-Forwarded-* / Forwarded header still mails the configured origin", async () => {
    const t = localApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const email = newEmail();
    expect((await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);
    for (const headers of FORGED) {
      t.tick();
      expect((await client(t).request("POST", "/auth/password/recovery", { body: { email }, headers })).status).toBe(202);
    }
    const links = t.mails(email).map(linkIn);
    expect(links).toHaveLength(FORGED.length);
    for (const link of links) expect(link).toMatch(/^http:\/\/127\.0\.0\.1:3000\/auth\/email\/recover\?token=[A-Za-z0-9._-]+$/);
  });

  it("registration (`before`) and verification (`after`, and the resend) links alike", async () => {
    const before = localApp({ verification: "before" });
    const fresh = newEmail();
    for (const headers of FORGED) {
      before.tick();
      await client(before).request("POST", "/auth/email/register", { body: { email: fresh }, headers });
    }
    const after = localApp({ verification: "after" });
    const email = newEmail();
    await client(after).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() }, headers: FORGED[0] });
    for (const headers of FORGED) {
      after.tick();
      // Anonymous: a cookie write whose Origin is not https://<Host> is refused before it mails.
      await client(after).request("POST", "/auth/email/verification", { body: { email }, headers });
    }
    const links = [...before.mails(fresh), ...after.mails(email)].map(linkIn);
    expect(links).toHaveLength(2 * FORGED.length + 1);
    for (const link of links) expect(link.startsWith(`${OWN}/auth/email/verify?token=`)).toBe(true);
  });

  it("the publicUrl option wins over PUBLIC_URL and over every header", async () => {
    vi.stubEnv("PUBLIC_URL", OWN);
    const t = emailApp({
      verification: "none",
      redirects: { failure: "https://x.test/f", recover: "https://x.test/r" },
      publicUrl: "https://id.example.com/api/",
    });
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    await client(t).request("POST", "/auth/password/recovery", { body: { email }, headers: FORGED[1] });
    expect(linkIn(t.mails(email)[0])).toMatch(/^https:\/\/id\.example\.com\/api\/auth\/email\/recover\?token=/);
  });
});
