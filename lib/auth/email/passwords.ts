import { PasswordBehavior, type ScryptCost } from "../../core/behaviors/password.ts";
import { isPlainObject } from "../../core/sanitize.ts";
import type { Application } from "../../core/application.ts";
import { AuthError } from "../errors.ts";
import type { EmailProviderOptions } from "./options.ts";

/** A service that may refuse a password (`password.verifier`), e.g. a breached-password list. */
export interface PasswordVerifier {
  verifyPassword(password: string, context: { email: string }): Promise<true | string> | true | string;
}

/** Policy first (length, pattern), then the configured verifier service. */
export async function checkPassword(app: Application, options: EmailProviderOptions["password"], password: string, email: string): Promise<void> {
  const { minLength, maxLength, pattern } = options.policy;
  const length = [...password].length;
  const problems: string[] = [];
  if (length < minLength) problems.push(`must be at least ${minLength} characters`);
  if (length > maxLength) problems.push(`must be at most ${maxLength} characters`);
  if (pattern && !new RegExp(pattern, "u").test(password)) problems.push(`must match ${pattern}`);
  if (problems.length > 0) throw new AuthError(400, "PASSWORD_POLICY", "The password does not meet the policy", undefined, problems.map((message) => ({ path: "/password", message })));
  if (options.verifier) {
    const service = app.service(options.verifier)?.service as Partial<PasswordVerifier> | undefined;
    if (typeof service?.verifyPassword !== "function") throw new Error(`password.verifier names '${options.verifier}', which has no verifyPassword()`);
    const verdict = await service.verifyPassword(password, { email });
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
