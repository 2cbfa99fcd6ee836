import { LEGACY_PASSWORDS, type HashVerifier } from "../core/behaviors/password.ts";
import { composeApplication, requireParts, type Composed } from "../core/compose.ts";
import { httpHandler } from "../http/handler.ts";
import { OPENID_CLIENT, type OpenIdProtocol } from "./idp/oidc.ts";
import { MAIL_TRANSPORT } from "./mail/mailer.ts";
import type { MailTransport } from "./mail/transport.ts";
import { authDispatcher } from "./routes/table.ts";

export type AuthFunctionParts = Composed<"secrets" | "store" | "validators" | "listing"> & {
  /** How mail leaves (lib/auth/mail/ses.ts's `sesTransport`; `npm start` uses the outbox whatever this says). */
  mail: (from: string) => MailTransport;
  /** openid-client as the Idp provider runs it (lib/auth/idp/oidc-protocol.ts). */
  openIdClient: OpenIdProtocol;
  /** Verifiers of password hashes that predate the framework's (lib/auth/v3/hash-verifier.ts), `[]` for none. */
  legacyPasswords: readonly HashVerifier[];
};

const DESCRIBED = {
  mail: "a mail transport (`mail: sesTransport`)",
  openIdClient: "the OpenID client (`openIdClient: openIdProtocol`)",
  legacyPasswords: "the legacy password verifiers (`legacyPasswords`, [] for none)",
};

/**
 * The function of the login providers' routes (register, login, recovery, the Idp flow): the only
 * one that sends mail, runs the OpenID protocol and checks passwords, so SES, openid-client and
 * bcrypt are bundled here and nowhere else.
 */
export async function authFunction(parts: AuthFunctionParts) {
  requireParts("auth", parts, Object.keys(DESCRIBED), DESCRIBED);
  const app = await composeApplication(
    "auth",
    parts,
    ["secrets", "store", "validators", "listing"],
    [MAIL_TRANSPORT.of(parts.mail), OPENID_CLIENT.of(parts.openIdClient), LEGACY_PASSWORDS.of(parts.legacyPasswords)],
  );
  return httpHandler("auth", authDispatcher(app));
}
