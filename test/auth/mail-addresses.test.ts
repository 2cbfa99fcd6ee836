import { describe, expect, it } from "vitest";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";

/**
 * The attack: a per-address mail throttle that counts literal addresses, so that every spelling
 * of one mailbox (`victim@example.com.`, `"victim"@example.com`, ...) got a mail of its own. Each
 * spelling is now refused before any lookup or throttle, through the real routes on DynamoDB Local.
 */
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };

/** Other spellings of `<local>@<domain>` that a mail server may deliver to the same mailbox. */
const spellings = (local: string, domain: string): string[] => [`${local}@${domain}.`, `"${local}"@${domain}`, `${local}@[127.0.0.1]`, `${local}(x)@${domain}`];

describe("one spelling per mailbox (attack 6)", () => {
  it("refuses other spellings of a known address on every mail route with a 400 naming /email, mailing nothing", async () => {
    const t = emailApp({ verification: "none", redirects: REDIRECTS });
    const email = newEmail();
    const [local, domain] = email.split("@") as [string, string];
    expect((await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);
    expect((await client(t).request("POST", "/auth/password/recovery", { body: { email } })).status).toBe(202);
    expect(t.mails(email)).toHaveLength(1);
    for (const spelling of spellings(local, domain)) {
      for (const path of ["/auth/password/recovery", "/auth/email/verification"]) {
        const reply = await client(t).request("POST", path, { body: { email: spelling } });
        expect({ spelling, path, status: reply.status }).toEqual({ spelling, path, status: 400 });
        expect(reply.body).toMatchObject({ code: 400, errors: [{ path: "/email", message: expect.any(String) }] });
      }
    }
    const mailed = t.allMails().filter((m) => m.to.includes(local));
    expect(mailed.map((m) => m.to)).toEqual([email]);
  });

  it("refuses the spellings at registration (`before` mode mails a link, so a spelling would get one)", async () => {
    const t = emailApp({ verification: "before" });
    const [local, domain] = newEmail().split("@") as [string, string];
    for (const spelling of spellings(local, domain)) {
      const reply = await client(t).request("POST", "/auth/email/register", { body: { email: spelling, password: PASSWORD } });
      expect({ spelling, status: reply.status }).toEqual({ spelling, status: 400 });
    }
    expect(t.allMails()).toHaveLength(0);
  });

  it("accepts the canonical spelling in any case, as one mailbox: one mail per resendDelay", async () => {
    const t = emailApp({ verification: "before" });
    const email = newEmail();
    const upper = ` ${email.toUpperCase()} `;
    expect((await client(t).request("POST", "/auth/email/register", { body: { email: upper } })).status).toBe(202);
    expect((await client(t).request("POST", "/auth/email/register", { body: { email } })).status).toBe(202);
    expect(t.mails(email)).toHaveLength(1);
  });
});
