import type { ApplicationParts } from "../../lib/core/application.ts";
import { LEGACY_PASSWORDS } from "../../lib/core/behaviors/password.ts";
import { serviceOptionsCheck } from "../../lib/core/config-check.ts";
import { domainListing } from "../../lib/core/list.ts";
import { runtimeValidation } from "../../lib/core/validation-compiler.ts";
import { OPENID_CLIENT } from "../../lib/auth/idp/oidc.ts";
import { openIdProtocol } from "../../lib/auth/idp/oidc-protocol.ts";
import { v3HashVerifier } from "../../lib/auth/v3/hash-verifier.ts";
import { validators } from "../../schema-cache/validators.mjs";

// As in the functions: the app's schemas validate with the code `npm run build` generated, so every
// test of error messages and pointers runs against it. Models that exist only in tests compile theirs.
const validation = runtimeValidation(validators);

/**
 * What a test's application is built with: every part a function may be composed with. Options
 * are checked (as under `npm start` and in the CLI), the domain lists, the Idp provider runs
 * openid-client and v3 bcrypt hashes verify (as in functions/auth.ts).
 */
export const inProcess: ApplicationParts = {
  validation,
  listing: domainListing,
  checkOptions: serviceOptionsCheck(),
  capabilities: [OPENID_CLIENT.of(openIdProtocol), LEGACY_PASSWORDS.of([v3HashVerifier])],
};
