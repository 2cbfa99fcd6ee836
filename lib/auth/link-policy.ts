import type { Ident } from "./idents.ts";
import type { AuthProvider } from "./types.ts";

/**
 * Every option that governs an account-linking decision, each read where the operator set it: the
 * email provider owns the accounts an Idp login could land in, so its `linking` and
 * `trustEmailVerification` count as much as the logging-in provider's own trust in its claims.
 */
export interface LinkingOptions {
  /** The email provider's `linking` (its default, `verified`, when no email provider is configured). */
  emailLinking: "verified" | "never";
  /** The email provider's `trustEmailVerification`: whether its verified addresses count for linking. */
  emailTrusted: boolean;
  /** The logging-in provider's own `trustEmailVerification`: whether its `email_verified` counts. */
  providerTrusted: boolean;
}

export type LinkDecision =
  /** Log in as the account that owns the address. */
  | { kind: "link"; user: string }
  /** No account owns the address in a way that matters: a new user. */
  | { kind: "new" }
  /** An account owns the address and may not be entered this way: ACCOUNT_EXISTS. */
  | { kind: "refuse" };

/** The email provider's side of the policy, as it declares it (AuthProvider.linkingPolicy). */
export function linkingOptions(providers: readonly AuthProvider[], providerTrusted: boolean): LinkingOptions {
  const policy = providers.find((p) => p.providerName === "email")?.linkingPolicy?.();
  return { emailLinking: policy?.linking ?? "verified", emailTrusted: policy?.trustEmailVerification ?? true, providerTrusted };
}

/**
 * The one account-linking decision for a logged-out login by a provider whose identity is new here,
 * given the email ident that owns the same address, if any. It links only when all agree: the
 * email provider allows linking, its verification is trusted and done, and the provider asserts
 * the address verified and is trusted. An owner verified here refuses every other outcome, so a
 * distrusted or `never` policy cannot be worked around by a second account on the same address;
 * an owner never verified proves nothing, so the login gets an account of its own.
 */
export function decideLink(owner: Pick<Ident, "user" | "verifiedAt"> | undefined, assertedVerified: boolean, options: LinkingOptions): LinkDecision {
  if (!owner?.verifiedAt) return { kind: "new" };
  const linkable = options.emailLinking === "verified" && options.emailTrusted && options.providerTrusted && assertedVerified;
  return linkable ? { kind: "link", user: owner.user } : { kind: "refuse" };
}
