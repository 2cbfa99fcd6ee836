import { app } from "../app/index.ts";
import { MailerService } from "../lib/auth/index.ts";
import { SesTransport } from "../lib/auth/mail/ses.ts";
import { authDispatcher } from "../lib/auth/routes/table.ts";
import { installValidators } from "../lib/core/validation.ts";
import { httpHandler } from "../lib/http/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";
import { validators } from "../schema-cache/validators.mjs";

// The authentication routes (lib/auth/routes): module scope runs once per cold start.
// Registration validates the user fields with the validators `npm run build` compiled.
installValidators(validators);
app.useStore(storeFromEnv());
// Only this function sends mail: SES is bundled here and nowhere else.
MailerService.useSes((from) => new SesTransport(from));

export const handler = httpHandler("auth", authDispatcher(app));
