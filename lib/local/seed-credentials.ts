import type { CredentialSetter } from "./seed.ts";

/**
 * How a seed user gets the means to log in: a verified email ident and a password, created
 * through the authentication service. That service (lib/auth, issue 11) is not in this tree yet,
 * so there is nothing to set: the demo users exist, but cannot log in until it lands. Once it
 * does, this becomes one call per user, e.g. `auth.seedEmailIdent(user.email, user.password)`.
 */
export const seedCredentials: CredentialSetter | undefined = undefined;
