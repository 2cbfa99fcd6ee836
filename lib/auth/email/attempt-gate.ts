import { countEvent } from "../../core/metrics.ts";
import { AuthError } from "../errors.ts";
import type { EmailProviderOptions } from "./options.ts";

/** The longest wait between failed attempts, however many failures came before. */
const MAX_WAIT_SECONDS = 300;

/**
 * The delay and lockout over a count of failures (a login's on the ident, a password change's on
 * the session): throws the 429 the caller gets while it must wait or is locked out, otherwise
 * answers the count the next attempt adds to (0 once a lock or the wait has expired).
 */
export function attemptGate(
  throttle: EmailProviderOptions["throttle"],
  counted: number | undefined,
  lastAt: string | undefined,
  now: number,
): { attempts: number } {
  const { failedBeforeDelay, delay, lockout } = throttle;
  const attempts = counted ?? 0;
  const last = lastAt ? Date.parse(lastAt) : Number.NaN;
  // A count without a timestamp (a v3 row) is an expired lock: verify normally, count anew.
  if (Number.isNaN(last)) return { attempts: 0 };
  const elapsed = (now - last) / 1000;
  if (lockout.after > 0 && attempts >= lockout.after) {
    if (elapsed < lockout.duration) {
      // Every attempt refused by a lock: a wave of them is an attack on the accounts or a bug.
      countEvent("Lockouts");
      throw new AuthError(429, "LOCKED_OUT", "Too many failed logins: the account is locked for a while", Math.ceil(lockout.duration - elapsed));
    }
    return { attempts: 0 };
  }
  if (attempts >= failedBeforeDelay) {
    const wait = Math.min(delay * 2 ** (attempts - failedBeforeDelay), MAX_WAIT_SECONDS);
    if (elapsed < wait) throw new AuthError(429, "TOO_MANY_ATTEMPTS", "Too many failed logins: wait before trying again", Math.ceil(wait - elapsed));
  }
  return { attempts };
}
