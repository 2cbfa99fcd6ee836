import { PasswordBehavior, type ScryptCost } from "../../core/behaviors/password.ts";
import { isPlainObject } from "../../core/sanitize.ts";
import type { Application } from "../../core/application.ts";
import { AuthError } from "../errors.ts";
import { isCommonPassword } from "./common-passwords.ts";
import type { EmailProviderOptions } from "./options.ts";

/** A service that may refuse a password (`password.verifier`), e.g. a breached-password list. */
export interface PasswordVerifier {
  verifyPassword(password: string, context: { email: string; names: string[] }): Promise<true | string> | true | string;
}

/** Folded for comparison: lowercased, without spaces, dots, dashes or underscores. */
const fold = (text: string) => text.toLowerCase().replace(/[\s._-]+/g, "");

/** Whether the password is, or holds, the account's address, its local part or one of its names. */
function personal(password: string, email: string, names: readonly string[]): boolean {
  const folded = fold(password);
  const local = email.slice(0, email.lastIndexOf("@"));
  const parts = [email, local, ...names].map(fold).filter((p) => p.length > 0);
  // A short part (a 3-letter name) is refused only as the whole password, not wherever it occurs.
  return parts.some((part) => folded === part || (part.length >= 4 && folded.includes(part)));
}

/**
 * The default policy, then the configured verifier service: the length (`minLength`,
 * `maxLength`) and `pattern`; the account's own address, its local part and its names
 * (`personal`); the most common passwords (`common`), unless a `verifier` decides instead.
 * `names`: the account's name fields (its username and name) as given or stored.
 */
export async function checkPassword(
  app: Application,
  options: EmailProviderOptions["password"],
  password: string,
  email: string,
  names: readonly string[] = [],
): Promise<void> {
  const { minLength, maxLength, pattern, common, personal: refusePersonal } = options.policy;
  const length = [...password].length;
  const problems: string[] = [];
  if (length < minLength) problems.push(`must be at least ${minLength} characters`);
  if (length > maxLength) problems.push(`must be at most ${maxLength} characters`);
  if (pattern && !new RegExp(pattern, "u").test(password)) problems.push(`must match ${pattern}`);
  if (refusePersonal !== false && personal(password, email, names)) problems.push("must not be or contain the account's email address or name");
  if (common !== false && !options.verifier && length <= maxLength && isCommonPassword(password)) problems.push("is one of the most commonly used passwords");
  if (problems.length > 0)
    throw new AuthError(
      400,
      "PASSWORD_POLICY",
      "The password does not meet the policy",
      undefined,
      problems.map((message) => ({ path: "/password", message })),
    );
  if (options.verifier) {
    const service = app.service(options.verifier)?.service as Partial<PasswordVerifier> | undefined;
    if (typeof service?.verifyPassword !== "function") throw new Error(`password.verifier names '${options.verifier}', which has no verifyPassword()`);
    const verdict = await service.verifyPassword(password, { email, names: [...names] });
    if (verdict !== true) throw new AuthError(400, "PASSWORD_REFUSED", "This password cannot be used", undefined, [{ path: "/password", message: verdict }]);
  }
}

export function passwordOf(user: Record<string, unknown> | undefined): PasswordBehavior {
  return new PasswordBehavior(isPlainObject(user?.password) ? { ...(user.password as Record<string, unknown>) } : {});
}

export async function hashPassword(password: string, cost: ScryptCost): Promise<Record<string, unknown>> {
  const behavior = new PasswordBehavior();
  await behavior.set(password, cost);
  return behavior.toStored();
}
