import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { client, emailApp, newEmail, PASSWORD, profile, type Reply } from "./client.ts";

/**
 * Authentication under parallel attempts, in process on DynamoDB Local: the conditional
 * writes, not the timing of one request after another, must hold every count.
 */
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };
const tally = (replies: Reply[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const key = `${r.status}${(r.body as { reason?: string } | undefined)?.reason ? ` ${(r.body as { reason: string }).reason}` : ""}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};

async function usersWithEmail(email: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({
        TableName: tableName(process.env.TABLE_PREFIX ?? "blog-local-", "User"),
        ConsistentRead: true,
        FilterExpression: "email = :e",
        ExpressionAttributeValues: { ":e": email },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += page.Items?.length ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

describe("parallel attempts", () => {
  it("20 concurrent registrations of one email make exactly one account", async () => {
    const t = emailApp({ verification: "none", redirects: REDIRECTS });
    const email = newEmail();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile(`racer${i}`) } }),
      ),
    );
    console.info(`[auth-concurrency] 20 registrations of one email: ${JSON.stringify(tally(replies))}`);
    expect(tally(replies)).toEqual({ 200: 1, "409 ACCOUNT_EXISTS": 19 });
    expect(await usersWithEmail(email)).toBe(1);
    const winner = replies.find((r) => r.status === 200)?.body as { user: { uuid: string } };
    expect((await t.auth.idents.find("email", email))?.user).toBe(winner.user.uuid);
  });

  it("counts concurrent failed logins exactly: one count per password checked", async () => {
    // No delay and no lockout within reach: only the counting is under test.
    const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { failedBeforeDelay: 100, delay: 1, lockout: { after: 0, duration: 1 } } });
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => client(t).request("POST", "/auth/email/login", { body: { email, password: "wrong password" } })),
    );
    const counts = tally(replies);
    console.info(`[auth-concurrency] 20 concurrent wrong logins: ${JSON.stringify(counts)}`);
    // A 401 checked the password; a 429 (the count's conditional write lost five times) did not.
    expect(Object.keys(counts).every((k) => k === "401 INVALID_CREDENTIALS" || k === "429 TOO_MANY_ATTEMPTS")).toBe(true);
    expect(counts["401 INVALID_CREDENTIALS"]).toBeGreaterThan(0);
    expect((await t.auth.idents.find("email", email))?._loginAttempts).toBe(counts["401 INVALID_CREDENTIALS"]);
  });

  it("lockout holds under parallel attempts: never more than `after` passwords checked", async () => {
    const t = emailApp({ verification: "none", redirects: REDIRECTS, throttle: { failedBeforeDelay: 5, delay: 10, lockout: { after: 5, duration: 600 } } });
    const email = newEmail();
    await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } });
    const wrong = () => client(t).request("POST", "/auth/email/login", { body: { email, password: "wrong password" } });
    const checked: Reply[] = [];
    // Parallel bursts of wrong passwords until one is refused whole as locked out (a right
    // password in between would reset the count).
    for (let burst = 0; burst < 10; burst++) {
      const replies = await Promise.all(Array.from({ length: 20 }, wrong));
      checked.push(...replies.filter((r) => r.status === 401));
      if (replies.every((r) => (r.body as { reason?: string }).reason === "LOCKED_OUT")) break;
    }
    console.info(`[auth-concurrency] lockout after 5: ${checked.length} passwords checked before the lock`);
    expect(checked).toHaveLength(5);
    const locked = await client(t).request("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
    expect(locked).toMatchObject({ status: 429, body: { reason: "LOCKED_OUT" } });
    expect((await t.auth.idents.find("email", email))?._loginAttempts).toBe(5);
  });

  it("mail throttling holds under parallel requests: one mail per address and kind per resendDelay", async () => {
    const t = emailApp({ verification: "before" });
    const known = newEmail();
    await client(emailApp({ verification: "none", redirects: REDIRECTS })).request("POST", "/auth/email/register", {
      body: { email: known, password: PASSWORD, user: profile() },
    });
    const unknown = newEmail();
    const ask = (path: string, email: string) => Array.from({ length: 20 }, () => client(t).request("POST", path, { body: { email } }));
    const replies = await Promise.all([
      ...ask("/auth/password/recovery", known),
      ...ask("/auth/email/register", unknown),
      ...ask("/auth/email/verification", unknown),
    ]);
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([202]));
    expect(t.mails(known)).toHaveLength(1);
    // Registration and verification each have their slot: one mail of each kind, however many asked.
    expect(
      t
        .mails(unknown)
        .map((m) => m.subject)
        .sort(),
    ).toEqual([expect.stringMatching(/finish your registration/), expect.stringMatching(/nothing to confirm/)]);
  });
});
