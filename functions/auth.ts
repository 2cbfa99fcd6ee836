import { app } from "../app/index.ts";
import { MailerService } from "../lib/auth/index.ts";
import { SesTransport } from "../lib/auth/mail/ses.ts";
import { authDispatcher } from "../lib/auth/routes/table.ts";
import { httpHandler } from "../lib/http/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// The authentication routes (lib/auth/routes): module scope runs once per cold start.
app.useStore(storeFromEnv());
// Only this function sends mail: SES is bundled here and nowhere else.
MailerService.useSes((from) => new SesTransport(from));

export const handler = httpHandler("auth", authDispatcher(app));
