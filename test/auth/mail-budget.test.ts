import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MailBudget } from "../../lib/auth/email/budget.ts";
import { emfLinesOf } from "../support/emf.ts";
import { SESSIONS, sessionShape } from "../../lib/auth/tables.ts";
import { withEnvironment } from "../support/offline-env.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";

/**
 * The attack: nothing bounding the mails the whole service sends, when each address (or each
 * spelling, or each sub-address) had its own per-address allowance. The service-wide budget holds
 * across instances (two applications on one DynamoDB Local, as two Lambda instances) and answers a
 * known and an unknown address alike once spent.
 */
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };
const BUDGET = 3;

/** A minute of its own, far from the real clock, so the budget row is this test's alone. */
function privateMinute(): (() => number) & { advance: (ms: number) => void } {
  const start = Date.UTC(2100, 0, 1) + randomInt(0, 10_000_000) * 60_000;
  let now = start;
  return Object.assign(() => now, { advance: (ms: number) => void (now += ms) });
}

function budgetApp(clock: () => number) {
  const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { mailsPerMinute: BUDGET } });
  t.auth.now = clock;
  return t;
}

describe("the service-wide mail budget (attack 6)", () => {
  it("sends at most mailsPerMinute mails a minute across instances, answering every address alike", async () => {
    const clock = privateMinute();
    const one = budgetApp(clock);
    const two = budgetApp(clock);
    const known = Array.from({ length: 5 }, () => newEmail());
    for (const email of known) {
      expect((await client(one).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);
    }
    const unknown = Array.from({ length: 6 }, () => newEmail());
    const asks = [...known.slice(0, 4), ...unknown].map((email, i) =>
      client(i % 2 === 0 ? one : two).request("POST", "/auth/password/recovery", { body: { email } }),
    );
    const replies = await Promise.all(asks);
    expect(new Set(replies.map((r) => JSON.stringify([r.status, r.body])))).toEqual(new Set([JSON.stringify([202, replies[0]?.body])]));
    expect(one.allMails().length + two.allMails().length).toBe(BUDGET);

    // Spent: a known address not asked yet and an unknown one answer the same, and nothing is mailed.
    const lateKnown = await client(one).request("POST", "/auth/password/recovery", { body: { email: known[4] } });
    const lateUnknown = await client(two).request("POST", "/auth/password/recovery", { body: { email: newEmail() } });
    expect(lateKnown).toEqual(replies[0]);
    expect(lateUnknown).toEqual(replies[0]);
    expect(one.allMails().length + two.allMails().length).toBe(BUDGET);

    // The next minute has a budget of its own.
    clock.advance(60_000);
    const fresh = known.slice(0, 4).find((email) => one.mails(email).length + two.mails(email).length === 0) as string;
    expect((await client(two).request("POST", "/auth/password/recovery", { body: { email: fresh } })).status).toBe(202);
    expect(two.mails(fresh)).toHaveLength(1);
  });

  it("does not spend the budget on an address asked again within resendDelay", async () => {
    const clock = privateMinute();
    const t = budgetApp(clock);
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    for (let i = 0; i < 5; i++) await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    const others = Array.from({ length: BUDGET - 1 }, () => newEmail());
    for (const other of others) await client(t).request("POST", "/auth/password/recovery", { body: { email: other } });
    expect(t.mails(email)).toHaveLength(1);
    expect(others.map((o) => t.mails(o).length)).toEqual(others.map(() => 1));
  });

  it("gives exactly mailsPerMinute of many simultaneous claims (each lost race is another claim's win)", async () => {
    const clock = privateMinute();
    const t = budgetApp(clock);
    const budget = new MailBudget(t.app.tableRepository(SESSIONS, sessionShape), clock);
    const granted = await Promise.all(Array.from({ length: 30 }, () => budget.claim(10)));
    expect(granted.filter(Boolean)).toHaveLength(10);
    expect(await budget.claim(10)).toBeUndefined();
  });
});

/** How many of `event` the metric lines written while `work` ran counted. */
async function eventCount(event: string, work: () => Promise<unknown>): Promise<number> {
  return (await emfLinesOf(work)).reduce((sum, line) => sum + Number(line[event] ?? 0), 0);
}

describe("a mail budget no stranger can spend", () => {
  // The functions' metric lines go to stdout, as in a deployed stage, where `eventCount` reads
  // them: set before these tests build their handlers, put back after them.
  withEnvironment({ METRICS_FILE: "" });
  const ATTACKER = "203.0.113.7";
  const BOB = "198.51.100.20";

  it("130 anonymous recoveries for unknown addresses from one source spend only its share: Bob's recovery mail then arrives", async () => {
    const clock = privateMinute();
    // The documented defaults, which the in-process helper otherwise sets out of reach.
    const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { mailsPerMinute: 100, mailsPerSourcePerMinute: 10 } });
    t.auth.now = clock;
    const bob = newEmail();
    expect((await client(t).request("POST", "/auth/email/register", { body: { email: bob, password: PASSWORD, user: profile() }, sourceIp: BOB })).status).toBe(
      200,
    );

    const replies: Awaited<ReturnType<ReturnType<typeof client>["request"]>>[] = [];
    const overShare = await eventCount("MailsOverSourceShare", async () => {
      for (let i = 0; i < 130; i++)
        replies.push(await client(t).request("POST", "/auth/password/recovery", { body: { email: newEmail() }, sourceIp: ATTACKER }));
    });
    // Over its share or not, every request is answered alike.
    expect(new Set(replies.map((r) => JSON.stringify([r.status, r.body])))).toEqual(new Set([JSON.stringify([202, replies[0]?.body])]));
    expect(t.allMails()).toHaveLength(10);
    expect(overShare).toBe(120);

    const asked = await client(t).request("POST", "/auth/password/recovery", { body: { email: bob }, sourceIp: BOB });
    expect([asked.status, asked.body]).toEqual([202, replies[0]?.body]);
    expect(t.mails(bob)).toHaveLength(1);
    expect(t.mails(bob)[0]?.subject).toMatch(/recover|password/i);
  });

  it("an IPv6 caller's share is its /64: walking the addresses of one prefix spends one share", async () => {
    const clock = privateMinute();
    const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { mailsPerMinute: 100, mailsPerSourcePerMinute: 3 } });
    t.auth.now = clock;
    for (let i = 1; i <= 8; i++)
      await client(t).request("POST", "/auth/password/recovery", { body: { email: newEmail() }, sourceIp: `2001:db8:1:2::${i.toString(16)}` });
    expect(t.allMails()).toHaveLength(3);
    await client(t).request("POST", "/auth/password/recovery", { body: { email: newEmail() }, sourceIp: "2001:db8:1:3::1" });
    expect(t.allMails()).toHaveLength(4);
  });

  it("a mail the budget refused spends nothing: the address may ask again once the budget allows, without waiting out resendDelay", async () => {
    const clock = privateMinute();
    const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { mailsPerMinute: 1, mailsPerSourcePerMinute: 100, resendDelay: 300 } });
    t.auth.now = clock;
    const bob = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email: bob, password: PASSWORD, user: profile() }, sourceIp: BOB });
    await client(t).request("POST", "/auth/password/recovery", { body: { email: newEmail() }, sourceIp: ATTACKER });
    expect(await eventCount("MailBudgetSpent", () => client(t).request("POST", "/auth/password/recovery", { body: { email: bob }, sourceIp: BOB }))).toBe(1);
    expect(t.mails(bob)).toHaveLength(0);
    clock.advance(60_000);
    await client(t).request("POST", "/auth/password/recovery", { body: { email: bob }, sourceIp: BOB });
    expect(t.mails(bob)).toHaveLength(1);
  });
});
