import { describe, expect, it } from "vitest";
import { client, emailApp, newEmail, PASSWORD, profile, type Reply } from "./client.ts";

/**
 * Account enumeration through the mail routes: registration in `before` mode, password
 * recovery and the verification resend must answer an existing and an unknown address alike, in
 * status, body and time. Each address is asked once, as a prober would; known and unknown tries
 * alternate (in a shuffled order per pair) so that the machine's load falls on both alike.
 */
const TRIES = Number(process.env.ENUMERATION_TRIES ?? 200);
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `count` accounts registered in `none` mode (unverified, nothing mailed), a few at a time. */
async function accounts(count: number): Promise<string[]> {
  const t = emailApp({ verification: "none", redirects: REDIRECTS });
  const emails = Array.from({ length: count }, () => newEmail());
  for (let i = 0; i < emails.length; i += 10) {
    await Promise.all(
      emails.slice(i, i + 10).map(async (email) => {
        const r = await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
        if (r.status !== 200) throw new Error(`registering ${email}: ${r.status} ${JSON.stringify(r.body)}`);
      }),
    );
  }
  return emails;
}

interface Probe {
  answers: Reply[];
  /** The unknown addresses asked. */
  strangers: string[];
  known: number[];
  unknown: number[];
}

async function probe(known: string[], ask: (email: string) => Promise<Reply>): Promise<Probe> {
  const out: Probe = { answers: [], strangers: [], known: [], unknown: [] };
  const timed = async (email: string, into: number[]) => {
    const began = performance.now();
    const reply = await ask(email);
    into.push(performance.now() - began);
    out.answers.push(reply);
  };
  const stranger = () => {
    const email = newEmail();
    out.strangers.push(email);
    return email;
  };
  for (const [i, email] of known.entries()) {
    // Alternate which goes first, so a warm-up or a slow second call favours neither side.
    if (i % 2 === 0) {
      await timed(email, out.known);
      await timed(stranger(), out.unknown);
    } else {
      await timed(stranger(), out.unknown);
      await timed(email, out.known);
    }
  }
  return out;
}

function report(route: string, p: Probe): number {
  const k = median(p.known);
  const u = median(p.unknown);
  const gap = Math.abs(k - u) / Math.min(k, u);
  console.info(
    `[enumeration] ${route}: ${p.known.length} existing vs ${p.unknown.length} unknown addresses, median ${k.toFixed(1)} ms vs ${u.toFixed(1)} ms, gap ${(100 * gap).toFixed(1)}%`,
  );
  return gap;
}

function expectAlike(p: Probe, status: number): void {
  const shapes = new Set(p.answers.map((a) => JSON.stringify({ status: a.status, body: a.body, cookies: a.cookies })));
  expect([...shapes]).toEqual([JSON.stringify({ status, body: p.answers[0]?.body, cookies: [] })]);
}

describe("existing and unknown addresses are answered alike", () => {
  // Each route does the real work for both kinds: every address gets one mail (a known one, one saying so).
  it.each([
    { route: "/auth/email/register", mode: "registration, verification before", options: { verification: "before" } },
    { route: "/auth/password/recovery", mode: "password recovery", options: { verification: "none", redirects: REDIRECTS } },
    { route: "/auth/email/verification", mode: "verification resend", options: { verification: "after" } },
  ] as const)(
    `$mode: same status and body over ${TRIES} tries each`,
    async ({ route, options }) => {
      const known = await accounts(TRIES);
      const t = emailApp(options);
      const p = await probe(known, (email) => client(t).request("POST", route, { body: { email } }));
      expectAlike(p, 202);
      expect([...known, ...p.strangers].filter((email) => t.mails(email).length !== 1)).toEqual([]);
      report(`POST ${route}`, p);
    },
    300_000,
  );
});
