import { PreconditionFailedError } from "../../core/errors.ts";
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

/** Where one kind of attempt keeps its count: a login's on the ident, a password change's on the session. */
export interface AttemptRow<Row, Counted> {
  /** The row, or undefined when there is none to count on (it may throw instead). */
  read(): Promise<Row | undefined>;
  /** The failures counted on it, and when the last attempt was. */
  countOf(row: Row): { counted: number | undefined; lastAt: string | undefined };
  /** Writes `attempts` on the row, conditionally on the version read: a PreconditionFailedError when another write came first. */
  write(row: Row, attempts: number): Promise<Counted>;
  /** The 429's message when other attempts kept winning the write. */
  busy: string;
}

/**
 * Counts one attempt before its password is checked, by a conditional write: parallel guesses
 * cannot pass the limit, and one that lost the write reads again. Undefined when there is no row.
 */
export async function countAttempt<Row, Counted>(
  throttle: EmailProviderOptions["throttle"],
  now: () => number,
  row: AttemptRow<Row, Counted>,
): Promise<Counted | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await row.read();
    if (current === undefined) return undefined;
    const { counted, lastAt } = row.countOf(current);
    const { attempts } = attemptGate(throttle, counted, lastAt, now());
    try {
      return await row.write(current, attempts + 1);
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
    }
  }
  throw new AuthError(429, "TOO_MANY_ATTEMPTS", row.busy, 1);
}
