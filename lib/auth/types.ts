import type { ProviderName } from "./idents.ts";

/** Verified claims from a provider; the authentication service finds or creates the ident (CONTRACT.md). */
export interface ProviderIdentity {
  provider: ProviderName;
  providerUid: string;
  /** Idp identities: the issuer that vouches for `providerUid` (its `sub`); part of the ident's key. */
  issuer?: string;
  email?: string;
  emailVerified: boolean;
  /** name, username hints for a new user */
  profile?: Record<string, unknown>;
  /** stored encrypted on the ident */
  tokens?: Record<string, unknown>;
}

/** What login and refresh answer (OAuth 2.0's token response names), plus the cookie for login. */
export interface TokenResponse {
  user: Record<string, unknown>;
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
}

export interface LoginResult extends TokenResponse {
  /** The session cookie header value. */
  setCookie: string;
}

export interface LoginOptions {
  /** The calling provider's own trust in its `email_verified`; the email provider's options are read by the linking decision itself (link-policy.ts). */
  trustEmailVerification: boolean;
  /** Logged-in linking: attach the identity to this user. Never set by Auth.Idp.Token (token login has no session to link to). */
  linkTo?: string;
}

/** Who a request acts for: lib/core's identity port names it. */
export type { Identity } from "../core/identity.ts";

/** A login method listed by `GET /auth/providers`. */
export interface AuthProvider {
  readonly providerName: ProviderName;
  describe(): Record<string, unknown>;
  /** The email provider's account-linking options, read by every linking decision. */
  linkingPolicy?(): { linking: "verified" | "never"; trustEmailVerification: boolean };
}
