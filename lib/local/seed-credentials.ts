import { authenticationOf, EmailPasswordProvider } from "../auth/index.ts";
import { PasswordBehavior } from "../core/behaviors/password.ts";
import { isPlainObject } from "../core/sanitize.ts";
import type { CredentialSetter } from "./seed.ts";

/**
 * How a seed user gets the means to log in, as a registration verified by mail would leave them:
 * a verified email ident (`<email>:email`) and a password hashed at the email provider's cost.
 * Idempotent, and it never overwrites a password someone has since changed. False when the
 * application has no authentication service or email provider.
 */
export const seedCredentials: CredentialSetter = async (app, user) => {
  const auth = authenticationOf(app);
  const provider = app
    .services()
    .map((entry) => entry.service)
    .find((s): s is EmailPasswordProvider => s instanceof EmailPasswordProvider);
  if (!auth || !provider) return false;
  const email = user.email.trim().toLowerCase();
  const ident = await auth.idents.find("email", email);
  if (ident && ident.user !== user.uuid) throw new Error(`seed: ${email} already belongs to another user (${ident.user})`);
  if (!ident) await auth.idents.create({ provider: "email", providerUid: email, user: user.uuid, email, verified: true });
  const users = app.repository(auth.identityModel());
  const stored = await users.get({ uuid: user.uuid });
  const current = new PasswordBehavior(isPlainObject(stored?.password) ? { ...stored.password } : {});
  if (!current.isSet()) {
    const password = new PasswordBehavior();
    await password.set(user.password, provider.options.password.cost);
    await users.patch({ uuid: user.uuid }, { password: password.toStored() }, []);
  }
  return true;
};
