import { describe, expect, it } from "vitest";
import { client, emailApp, linkIn, newEmail, PASSWORD, profile, tokenOf, type Reply } from "./client.ts";

/**
 * The attack: one recovery link used twice at once would set the password twice (both answered
 * 200), because the password write was not conditional on the hash the token was issued against.
 * Through the real routes on DynamoDB Local, many uses at once: one wins, the others answer the
 * documented INVALID_TOKEN, and only the winner's password opens the account.
 */
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };
const USES = 8;

const outcome = (r: Reply): string => `${r.status}${(r.body as { reason?: string } | undefined)?.reason ? ` ${(r.body as { reason: string }).reason}` : ""}`;

describe("mailed tokens are single-use under concurrency (attack 5)", () => {
  it("a recovery link used many times at once sets the password once", async () => {
    // No login delay within reach: every password below is tried once afterwards.
    const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { failedBeforeDelay: 100, delay: 1, lockout: { after: 0, duration: 1 } } });
    const email = newEmail();
    expect((await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);
    await client(t).request("POST", "/auth/password/recovery", { body: { email } });
    const token = tokenOf(linkIn(t.mails(email)[0]));
    const passwords = Array.from({ length: USES }, (_, i) => `new password number ${i}`);
    const replies = await Promise.all(passwords.map((password) => client(t).request("POST", "/auth/password/recover", { body: { token, password } })));
    const outcomes = replies.map(outcome);
    expect(outcomes.filter((o) => o === "200")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "200")).toEqual(Array.from({ length: USES - 1 }, () => "400 INVALID_TOKEN"));
    const winner = passwords[outcomes.indexOf("200")] as string;
    for (const password of passwords) {
      const login = await client(t).request("POST", "/auth/email/login", { body: { email, password } });
      expect({ password, status: login.status }).toEqual({ password, status: password === winner ? 200 : 401 });
    }
    // The winner's session is the only one left from the recovery.
    const session = replies[outcomes.indexOf("200")]?.body as { access_token: string };
    expect((await client(t).request("GET", "/auth/me", { headers: { authorization: `Bearer ${session.access_token}` } })).body).toMatchObject({ email });
  });

  it("a registration link used many times at once makes one account (the ident's create is the condition)", async () => {
    const t = emailApp({ verification: "before" });
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email } });
    const token = tokenOf(linkIn(t.mails(email)[0]));
    const replies = await Promise.all(
      Array.from({ length: USES }, (_, i) =>
        client(t).request("POST", "/auth/email/register", { body: { email, token, password: PASSWORD, user: profile(`racer${i}`) } }),
      ),
    );
    const outcomes = replies.map(outcome);
    expect(outcomes.filter((o) => o === "200")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "200")).toEqual(Array.from({ length: USES - 1 }, () => "409 ACCOUNT_EXISTS"));
  });
});
