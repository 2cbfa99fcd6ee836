import { domainListing } from "../../lib/core/list.ts";
import { installListing } from "../../lib/core/listing.ts";
import { useOpenIdClient } from "../../lib/auth/idp/oidc.ts";
import { openIdProtocol } from "../../lib/auth/idp/oidc-protocol.ts";
import { registerV3HashVerifier } from "../../lib/auth/v3/hash-verifier.ts";
import { checkServiceOptions } from "../../lib/core/config-check.ts";
import { installValidators } from "../../lib/core/validation.ts";
import { useRuntimeCompiler } from "../../lib/core/validation-compiler.ts";
import { validators } from "../../schema-cache/validators.mjs";

// As in the functions: the app's schemas validate with the code `npm run build` generated, so every
// test of error messages and pointers runs against it. Models that exist only in tests compile theirs.
installValidators(validators);
useRuntimeCompiler();

// As under `npm start` and in the CLI: an application with invalid service options refuses to build.
checkServiceOptions();

// As in functions/auth.ts, which logs users in: v3 bcrypt hashes verify.
registerV3HashVerifier();

// As in functions/auth.ts, which serves the Idp routes: the provider runs openid-client.
useOpenIdClient(openIdProtocol);

// As in every function but the record read's and the session routes': the domain lists (tests
// build applications over stores of their own as well as through lib/store/select.ts).
installListing(domainListing);
