import { describe, expect, it } from "vitest";
import { definition } from "../fixtures/blog/index.ts";
import { isCommonPassword } from "../../lib/auth/email/common-passwords.ts";
import { COMMON_PASSWORDS } from "../../lib/auth/email/common-passwords-data.ts";
import { Service } from "../../lib/core/service.ts";
import { commonPasswordsModule } from "../../scripts/common-passwords.ts";
import { client, emailApp, newEmail, PASSWORD } from "./client.ts";

/**
 * The default password policy, through the registration route: the most common passwords, the
 * account's own address, its local part and its name, and lengths under the minimum are refused
 * (400 PASSWORD_POLICY at /password); `password.policy` and `password.verifier` override it.
 */
const REDIRECTS = { failure: "https://x.test/f", recover: "https://x.test/r" };

function register(t: ReturnType<typeof emailApp>, password: string, email = newEmail(), user = { username: "zebulon", name: "Zebulon Quartz" }) {
  return client(t).request("POST", "/auth/email/register", { body: { email, password, user } });
}

const refusal = (reason = "PASSWORD_POLICY") => ({ status: 400, body: { code: 400, reason, errors: [{ path: "/password", message: expect.any(String) }] } });

/** A verifier service that refuses one password and accepts the rest. */
class OnePasswordRefused extends Service {
  static override readonly type = "Test/OnePasswordRefused";
  verifyPassword(password: string): true | string {
    return password === "tr0ub4dor&3xyz" ? "is on our own list" : true;
  }
}

describe("the default password policy, at registration", () => {
  it("refuses the most common passwords, in any letter case", async () => {
    const t = emailApp({ verification: "none", redirects: REDIRECTS });
    for (const password of ["password", "12345678", "qwerty123", "Password1", "iloveyou", "PASSWORD"]) {
      expect(await register(t, password), password).toMatchObject(refusal());
    }
    expect((await register(t, PASSWORD)).status).toBe(200);
  });

  it("refuses the account's own address, its local part and its name, and what is too short", async () => {
    const t = emailApp({ verification: "none", redirects: REDIRECTS });
    const email = newEmail();
    const local = email.slice(0, email.indexOf("@"));
    for (const password of [email, email.toUpperCase(), local, `${local}2024!`, "Zebulon Quartz", "zebulonquartz!", "zebulon99", "sh0rt"]) {
      expect(await register(t, password, email), password).toMatchObject(refusal());
    }
    expect((await register(t, "orbit lantern meadow", email)).status).toBe(200);
  });

  it("password.policy overrides it: common and personal checks off, a longer minimum", async () => {
    const lax = emailApp({ verification: "none", redirects: REDIRECTS, password: { cost: { ln: 10 }, policy: { common: false, personal: false } } });
    expect((await register(lax, "password")).status).toBe(200);
    const email = newEmail();
    expect((await register(lax, email, email)).status).toBe(200);
    const long = emailApp({ verification: "none", redirects: REDIRECTS, password: { cost: { ln: 10 }, policy: { minLength: 24 } } });
    expect(await register(long, "orbit lantern meadow")).toMatchObject(refusal());
  });

  it("password.verifier decides instead of the built-in list; the address and name are still refused", async () => {
    const t = emailApp(
      { verification: "none", redirects: REDIRECTS, password: { cost: { ln: 10 }, verifier: "verifier" } },
      { verifier: { type: "Test/OnePasswordRefused" } },
      { serviceTypes: [...definition.serviceTypes, OnePasswordRefused] },
    );
    expect(await register(t, "tr0ub4dor&3xyz")).toMatchObject(refusal("PASSWORD_REFUSED"));
    expect((await register(t, "password")).status).toBe(200);
    const email = newEmail();
    expect(await register(t, email, email)).toMatchObject(refusal());
  });
});

describe("the common-password list", () => {
  it("ships tens of thousands of the list's passwords, and the module is what the script builds", () => {
    expect(COMMON_PASSWORDS.count).toBeGreaterThan(15_000);
    expect(commonPasswordsModule()).toContain(`data: "${COMMON_PASSWORDS.data}"`);
  });

  it("rarely takes an uncommon password for a common one", () => {
    const random = Array.from({ length: 5000 }, (_, i) => `uncommon-${i}-${(i * 7919).toString(36)}-zq`);
    expect(random.filter(isCommonPassword).length).toBeLessThanOrEqual(2);
  });
});
