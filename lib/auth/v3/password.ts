import bcrypt from "bcryptjs";

/**
 * v3 hashed passwords with bcrypt (bcryptjs' `hashSync(password, 10)`): `$2a$` / `$2b$` / `$2y$`,
 * a two-digit cost, 22 characters of salt and 31 of hash in bcrypt's base64 alphabet.
 */
const BCRYPT = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/;

export function isV3Hash(hash: unknown): hash is string {
  return typeof hash === "string" && BCRYPT.test(hash);
}

/**
 * Checks a password against a v3 hash. The password is taken as typed (v3 did not normalise it),
 * and bcryptjs compares in constant time. A cost beyond 16 is refused rather than spent: no v3
 * deployment used one, and a doctored row must not buy seconds of CPU per login attempt.
 */
export async function verifyV3Password(password: string, hash: string): Promise<boolean> {
  const match = BCRYPT.exec(hash);
  if (!match || Number(match[1]) > 16) return false;
  return bcrypt.compare(password, hash);
}
