import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { MailKind } from "../../lib/auth/email/throttle.ts";
import { client, emailApp, newEmail, PASSWORD, profile, type OutboxMail, type Reply } from "./client.ts";

/**
 * The attack (issue 54, item 3): a stranger polls `POST /auth/email/verification` for a verified
 * address every 400 ms while its owner asks for a recovery link. When every kind of mail shared
 * one slot per address and a refused request cost its sender nothing, 1 of the owner's 18
 * requests in 45 s was mailed. Each kind now has its own slot per address, and every request,
 * sent or refused, counts against its source's share.
 */
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r", verified: "https://x.test/v", register: "https://x.test/g" };
/** The sample's resendDelay and the documented default share and budget. */
const LIMITS = { resendDelay: 10, mailsPerSourcePerMinute: 10, mailsPerMinute: 100 };
const STRANGER = "203.0.113.66";
const OWNER = "198.51.100.42";

interface Ask {
  at: number;
  source: string;
  kind: MailKind;
  email: string;
}

const PATHS: Record<MailKind, string> = { register: "/auth/email/register", verification: "/auth/email/verification", recovery: "/auth/password/recovery" };

/**
 * The mails the documented limits let through (docs/authentication.md, "Mail limits"), in order:
 * the source's share per calendar minute, which every request spends; one mail per address and
 * kind per resendDelay (whole seconds, as the slot's row keeps them); the service-wide budget.
 */
function allowed(asks: Ask[], limits: typeof LIMITS): Ask[] {
  const shares = new Map<string, number>();
  const budget = new Map<number, number>();
  const last = new Map<string, number>();
  const sent: Ask[] = [];
  for (const ask of asks) {
    const minute = Math.floor(ask.at / 60_000);
    const share = `${ask.source}/${minute}`;
    if ((shares.get(share) ?? 0) >= limits.mailsPerSourcePerMinute) continue;
    shares.set(share, (shares.get(share) ?? 0) + 1);
    const slot = `${ask.kind}/${ask.email}`;
    const seconds = Math.floor(ask.at / 1000);
    const previous = last.get(slot);
    if (previous !== undefined && seconds < previous + Math.max(limits.resendDelay, 1)) continue;
    if ((budget.get(minute) ?? 0) >= limits.mailsPerMinute) continue;
    budget.set(minute, (budget.get(minute) ?? 0) + 1);
    last.set(slot, seconds);
    sent.push(ask);
  }
  return sent;
}

function kindOf(mail: OutboxMail): MailKind {
  if (/confirm/.test(mail.subject)) return "verification";
  if (/reset/.test(mail.subject)) return "recovery";
  return "register";
}

/** A clock of its own, far from the real one, so the minute's counter rows are this test's alone; `at` ms past a minute's start. */
function privateClock(): { now: () => number; set: (at: number) => void } {
  const start = Date.UTC(2100, 0, 1) + randomInt(0, 10_000_000) * 60_000;
  let now = start;
  return { now: () => now, set: (at) => void (now = start + at) };
}

/** Replays `asks` in time order against a fresh application; answers every reply and the mails sent. */
async function replay(asks: Ask[], setup: (t: ReturnType<typeof emailApp>) => Promise<void>) {
  const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: LIMITS });
  const clock = privateClock();
  t.auth.now = clock.now;
  // Minutes before the replay: nothing the setup does counts on the replayed minutes' rows.
  clock.set(-180_000);
  await setup(t);
  const replies: Reply[] = [];
  for (const ask of [...asks].sort((a, b) => a.at - b.at)) {
    clock.set(ask.at);
    replies.push(await client(t).request("POST", PATHS[ask.kind], { body: { email: ask.email }, sourceIp: ask.source }));
  }
  return { t, replies };
}

/** The owner's account, registered and verified. */
async function verifiedOwner(t: ReturnType<typeof emailApp>, email: string): Promise<void> {
  const registered = await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() }, sourceIp: OWNER });
  expect(registered.status).toBe(200);
  const ident = await t.auth.idents.find("email", email);
  await t.auth.idents.patch(ident as NonNullable<typeof ident>, { verifiedAt: new Date(0).toISOString() });
}

describe("mail no stranger can crowd out (issue 54, item 3)", () => {
  it("a stranger polling verification every 400 ms for 45 s holds back none of the owner's recovery mails", async () => {
    const owner = newEmail();
    // Half past a minute, so the 45 s span two of the sources' minutes, as a real attack would.
    const stranger: Ask[] = Array.from({ length: 113 }, (_, i) => ({ at: 30_000 + i * 400, source: STRANGER, kind: "verification", email: owner }));
    const recoveries: Ask[] = Array.from({ length: 18 }, (_, i) => ({ at: 30_100 + i * 2_500, source: OWNER, kind: "recovery", email: owner }));

    const attacked = await replay([...stranger, ...recoveries], (t) => verifiedOwner(t, owner));
    // The control: the owner's requests alone, for an owner of its own (one DynamoDB Local).
    const ownerAlone = newEmail();
    const alone = await replay(
      recoveries.map((a) => ({ ...a, email: ownerAlone })),
      (t) => verifiedOwner(t, ownerAlone),
    );

    // Every request answered alike, mailed or not.
    const answers = new Set([...attacked.replies, ...alone.replies].map((r) => JSON.stringify([r.status, r.body])));
    expect(answers).toEqual(new Set([JSON.stringify([202, attacked.replies[0]?.body])]));

    const mailsOf = (t: ReturnType<typeof emailApp>, kind: MailKind, to = owner) => t.mails(to).filter((m) => kindOf(m) === kind);
    const recoveryLinks = mailsOf(attacked.t, "recovery");
    // Exactly what the documented limits allow the owner: one recovery mail per resendDelay while
    // its own share lasts, the stranger's polling or not.
    const expected = allowed(
      [...stranger, ...recoveries].sort((a, b) => a.at - b.at),
      LIMITS,
    ).filter((a) => a.kind === "recovery");
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect(recoveryLinks).toHaveLength(expected.length);
    expect(mailsOf(alone.t, "recovery", ownerAlone)).toHaveLength(expected.length);
    for (const mail of recoveryLinks) expect(mail.text).toMatch(/\/auth\/email\/recover\?token=/);

    // The stranger's own mails to the owner ("nothing to confirm"): bounded by its share and the
    // verification slot; every poll past its share touched no slot at all.
    const strangerMails = allowed(stranger, LIMITS);
    expect(mailsOf(attacked.t, "verification")).toHaveLength(strangerMails.length);
    expect(strangerMails.length).toBeLessThanOrEqual(2 * LIMITS.mailsPerSourcePerMinute);
    console.info(
      `[mail-crowding] owner: ${recoveryLinks.length} recovery mails of ${recoveries.length} requests (alone: ${mailsOf(alone.t, "recovery", ownerAlone).length}); stranger: ${strangerMails.length} mails of ${stranger.length} polls`,
    );
  });

  it("a request refused by the address's slot still spends its source's share", async () => {
    const victim = newEmail();
    // Ten requests of one source for one address within resendDelay: one mail, nine refusals.
    const polls: Ask[] = Array.from({ length: 10 }, (_, i) => ({ at: 1_000 + i * 500, source: STRANGER, kind: "recovery", email: victim }));
    const fresh = newEmail();
    const other = newEmail();
    const after: Ask[] = [
      // The eleventh request of that source this minute, for an address never asked: its share is spent.
      { at: 7_000, source: STRANGER, kind: "recovery", email: fresh },
      // Another source is not touched by it.
      { at: 7_500, source: OWNER, kind: "recovery", email: other },
    ];
    const { t } = await replay([...polls, ...after], async () => undefined);
    expect(t.mails(victim)).toHaveLength(1);
    expect(t.mails(fresh)).toHaveLength(0);
    expect(t.mails(other)).toHaveLength(1);
  });

  it("each kind has its own slot per address: a registration or verification mail never holds back a recovery link", async () => {
    const owner = newEmail();
    const asks: Ask[] = [
      { at: 1_000, source: STRANGER, kind: "register", email: owner },
      { at: 1_100, source: STRANGER, kind: "verification", email: owner },
      { at: 1_200, source: OWNER, kind: "recovery", email: owner },
      // Within resendDelay of each: one mail per address and kind.
      { at: 2_000, source: STRANGER, kind: "register", email: owner },
      { at: 2_100, source: STRANGER, kind: "verification", email: owner },
      { at: 2_200, source: OWNER, kind: "recovery", email: owner },
    ];
    const t = emailApp({ verification: "before", redirects: REDIRECTS, throttle: LIMITS });
    const clock = privateClock();
    t.auth.now = clock.now;
    await client(emailApp({ verification: "none", redirects: REDIRECTS })).request("POST", "/auth/email/register", {
      body: { email: owner, password: PASSWORD, user: profile() },
    });
    for (const ask of asks) {
      clock.set(ask.at);
      const body = ask.kind === "register" ? { email: ask.email, password: "whatever-12345" } : { email: ask.email };
      expect((await client(t).request("POST", PATHS[ask.kind], { body, sourceIp: ask.source })).status).toBe(202);
    }
    expect(t.mails(owner).map(kindOf).sort()).toEqual(["recovery", "register", "verification"]);
  });
});
