import { createApp } from "../app/definition.ts";
import { authFunction } from "../lib/auth/auth-function.ts";
import { openIdProtocol } from "../lib/auth/idp/oidc-protocol.ts";
import { sesTransport } from "../lib/auth/mail/ses.ts";
import { v3HashVerifier } from "../lib/auth/v3/hash-verifier.ts";
import { domainListing } from "../lib/core/list.ts";
import { loadSecrets } from "../lib/core/secrets/load.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// The login providers' routes: the only function that sends mail (SES), runs the OpenID protocol
// (openid-client) and checks passwords (v3's bcrypt hashes included), so those are bundled here
// and nowhere else. Registration validates the user fields with the validators `npm run build` compiled.
export const handler = await authFunction({
  app: createApp,
  secrets: loadSecrets,
  store: storeFromEnv,
  validators,
  listing: domainListing,
  mail: sesTransport,
  openIdClient: openIdProtocol,
  legacyPasswords: [v3HashVerifier],
});
