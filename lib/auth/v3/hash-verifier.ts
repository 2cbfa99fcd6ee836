import { PasswordBehavior } from "../../core/behaviors/password.ts";
import { isV3Hash, verifyV3Password } from "./password.ts";

const bcryptVerifier = { recognizes: isV3Hash, verify: verifyV3Password };

/**
 * v3 hashes keep working at login whatever `compatibility.v3` says: the migration moves them to
 * `password.__hash` as they are, and a user who has not logged in since still holds one after
 * compatibility is switched off. The first successful login rehashes it (the email provider).
 * Registered by the function that logs users in (functions/auth.ts) and by the tests, so that
 * bcrypt stays out of the other bundles: nothing else verifies a password.
 */
export function registerV3HashVerifier(): void {
  if (!PasswordBehavior.hashVerifiers.includes(bcryptVerifier)) PasswordBehavior.hashVerifiers.push(bcryptVerifier);
}
