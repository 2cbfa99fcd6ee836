import { randomUUID } from "node:crypto";
import type { Context } from "../core/context.ts";
import { AuthError } from "./errors.ts";
import type { Ident } from "./idents.ts";
import { decideLink, linkingOptions } from "./link-policy.ts";
import type { AuthenticationService } from "./service.ts";
import type { LoginOptions, LoginResult, ProviderIdentity } from "./types.ts";
import { createUser, profileFields } from "./users.ts";

const accountExists = (): AuthError => new AuthError(409, "ACCOUNT_EXISTS", "An account already uses this email: log in with it, then link this provider");

/**
 * Finds or creates the ident of a proven identity and logs its user in (the seam of CONTRACT.md).
 * Linking: a logged-in caller links to itself; a logged-out one goes through
 * decideLink (link-policy.ts), which reads the email provider's `linking` and
 * `trustEmailVerification` as well as the calling provider's trust in its own claims.
 */
export async function loginWithProvider(auth: AuthenticationService, _ctx: Context, identity: ProviderIdentity, options: LoginOptions): Promise<LoginResult> {
  const idents = auth.idents;
  const emailVerified = identity.emailVerified && options.trustEmailVerification;
  const email = identity.email?.trim().toLowerCase();
  let ident: Ident | undefined = await idents.find(identity.provider, identity.providerUid, identity.issuer);
  if (ident) {
    if (options.linkTo !== undefined && ident.user !== options.linkTo) throw accountExists();
    const set: Parameters<typeof idents.patch>[1] = {};
    if (identity.tokens) set.tokens = identity.tokens;
    if (emailVerified && !ident.verifiedAt) set.verifiedAt = new Date(auth.now()).toISOString();
    if (Object.keys(set).length > 0) ident = await idents.patch(ident, set);
    return auth.login(ident.user, identity.provider, { ident: ident.uuid });
  }
  let user = options.linkTo;
  if (user === undefined && email && identity.provider !== "email") {
    const decision = decideLink(await idents.find("email", email), identity.emailVerified, linkingOptions(auth.providers(), options.trustEmailVerification));
    if (decision.kind === "refuse") throw accountExists();
    if (decision.kind === "link") user = decision.user;
  }
  const info = auth.identityModel();
  const created = user === undefined;
  user ??= randomUUID();
  try {
    ident = await idents.create({
      provider: identity.provider,
      providerUid: identity.providerUid,
      ...(identity.issuer ? { issuer: identity.issuer } : {}),
      user,
      ...(email ? { email } : {}),
      verified: emailVerified,
      ...(identity.tokens ? { tokens: identity.tokens } : {}),
    });
  } catch (error) {
    // The same identity logging in twice at once: the other call created it; log in as its user.
    const raced = await idents.find(identity.provider, identity.providerUid, identity.issuer);
    if (!raced) throw error;
    return auth.login(raced.user, identity.provider, { ident: raced.uuid });
  }
  if (created) {
    try {
      // The profile's address only when the provider vouches for it (and is trusted to): an
      // address no one verified never becomes the account's.
      await createUser(auth.app, info, profileFields(info, identity.profile, email), user, emailVerified ? email : undefined);
    } catch (error) {
      await idents.delete(ident).catch(() => undefined);
      throw error;
    }
    await auth.publish("Authentication.Register", { user, provider: identity.provider });
  }
  return auth.login(user, identity.provider, { ident: ident.uuid });
}
