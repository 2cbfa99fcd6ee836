import { randomBytes } from "node:crypto";
import { generateSigningJwk } from "../../lib/auth/keys.ts";

/**
 * As a deployed function runs: no `serverless offline` (IS_OFFLINE: readable logs, the test-user
 * hook), so logs are the production JSON lines and writes authenticate with a bearer token. The
 * signing key and application secret are deploy parameters; the bench brings its own, as the
 * tests do.
 */
export function productionEnv(): void {
  delete process.env.IS_OFFLINE;
  delete process.env.ALLOW_TEST_USER;
  delete process.env.LOG_FORMAT;
  process.env.AUTH_SIGNING_KEY ??= JSON.stringify(generateSigningJwk());
  process.env.APP_SECRET ??= randomBytes(48).toString("base64url");
}
