import type { HashVerifier } from "../../core/behaviors/password.ts";
import { isV3Hash, verifyV3Password } from "./password.ts";

/**
 * v3 hashes keep working at login whatever `compatibility.v3` says: the migration moves them to
 * `password.__hash` as they are, and a user who has not logged in since still holds one after
 * compatibility is switched off. The first successful login rehashes it (the email provider).
 * The function that logs users in (functions/auth.ts) is composed with it (`legacyPasswords`),
 * as are the tests, so that bcrypt stays out of the other bundles: nothing else verifies a password.
 */
export const v3HashVerifier: HashVerifier = { recognizes: isV3Hash, verify: verifyV3Password };
