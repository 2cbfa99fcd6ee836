import { createApp } from "../app/definition.ts";
import { MailerService } from "../lib/auth/index.ts";
import { useOpenIdClient } from "../lib/auth/idp/oidc.ts";
import { openIdProtocol } from "../lib/auth/idp/oidc-protocol.ts";
import { SesTransport } from "../lib/auth/mail/ses.ts";
import { registerV3HashVerifier } from "../lib/auth/v3/hash-verifier.ts";
import { authDispatcher } from "../lib/auth/routes/table.ts";
import { installValidators } from "../lib/core/validation.ts";
import { httpHandler } from "../lib/http/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";
import { loadSecrets } from "../lib/core/secrets/load.ts";

// This function's secrets, read from SSM once per cold start before anything is built (a
// deployed stage; `npm start` passes them in the environment).
await loadSecrets();

// Built from the definition only: its configuration was checked when `serverless package` ran
// the CLI (app/index.ts), so TypeBox's interpreter stays out of this bundle.
const app = createApp();

// The authentication routes (lib/auth/routes): module scope runs once per cold start.
// Registration validates the user fields with the validators `npm run build` compiled.
installValidators(validators);
app.useStore(storeFromEnv());
// Only this function sends mail: SES is bundled here and nowhere else.
MailerService.useSes((from) => new SesTransport(from));
// Only this function serves the Idp routes: openid-client is bundled here and nowhere else.
useOpenIdClient(openIdProtocol);
// Only this function checks passwords: v3's bcrypt hashes are verified here and nowhere else.
registerV3HashVerifier();

export const handler = httpHandler("auth", authDispatcher(app));
