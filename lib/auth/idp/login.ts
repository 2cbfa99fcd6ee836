import type { Application } from "../../core/application.ts";
import type { Context } from "../../core/context.ts";
import type { VerifiedClaims } from "./id-token.ts";
import type { IdpProvider } from "./provider.ts";
import { IdpRefusal } from "./refusal.ts";
import { providerLogin, publish, type LoginResult } from "./seam.ts";

/** Claims worth keeping as hints for a new user; never a token. */
function profileOf(claims: VerifiedClaims): Record<string, unknown> {
  const profile: Record<string, unknown> = {};
  for (const key of ["name", "given_name", "family_name", "preferred_username", "nickname", "picture", "locale"] as const) {
    if (typeof claims[key] === "string") profile[key] = claims[key];
  }
  return profile;
}

/**
 * Hands a verified identity to the authentication service (which finds or creates the ident
 * keyed by this provider's issuer and the `sub`, lib/auth/idp-keys.ts, applies the linking policy, stores the tokens encrypted, emits Authentication.Login
 * and starts the session), then emits IdpAuth.Tokens. Never links to a logged-in user: neither
 * route of this provider passes `linkTo`.
 */
export async function loginAs(
  app: Application,
  provider: IdpProvider,
  ctx: Context,
  claims: VerifiedClaims,
  tokens: Record<string, unknown>,
  verified: boolean,
): Promise<LoginResult> {
  const auth = providerLogin(app);
  if (!auth) throw new IdpRefusal("LOGIN_FAILED", "no Framework/Authentication service is configured");
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : undefined;
  const result = await auth.loginWithProvider(
    ctx,
    {
      provider: "idp",
      providerUid: claims.sub,
      issuer: provider.options.issuer,
      ...(email ? { email } : {}),
      emailVerified: verified,
      profile: profileOf(claims),
      tokens,
    },
    { trustEmailVerification: provider.options.trustEmailVerification },
  );
  await publish(app, "IdpAuth.Tokens", { tokens, context: ctx, user: result.user, provider: provider.name });
  return result;
}
