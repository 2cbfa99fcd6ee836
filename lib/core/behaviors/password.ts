import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { Behavior } from "../behavior.ts";
import { Capability } from "../capability.ts";

/**
 * Passwords are stored as a PHC string (`$scrypt$ln=..,r=..,p=..$salt$hash`) so the cost can be
 * raised later and old hashes still verify (and can be re-hashed on the next successful login).
 */
export interface ScryptCost {
  ln: number;
  r: number;
  p: number;
}

/** A verifier for hashes that are not our PHC strings (v3's, lib/auth/v3/hash-verifier.ts). */
export interface HashVerifier {
  recognizes(hash: string): boolean;
  verify(password: string, hash: string): Promise<boolean>;
}

/**
 * The verifiers of hashes that are not ours, asked in order: what the function that logs users in
 * is composed with (functions/auth.ts: v3's bcrypt), so that no other bundle carries them.
 */
export const LEGACY_PASSWORDS = new Capability<readonly HashVerifier[]>(
  "legacy password verifiers",
  "compose the function that checks passwords with `legacyPasswords` ([] when no hash predates the framework's)",
);

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: { ln: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** cost.ln, r: cost.r, p: cost.p, maxmem: 256 * 2 ** cost.ln * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function parse(phc: string): { cost: { ln: number; r: number; p: number }; salt: Buffer; hash: Buffer } | undefined {
  const match = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/_-]+)\$([A-Za-z0-9+/_-]+)$/.exec(phc);
  if (!match) return undefined;
  const [, ln, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  return {
    cost: { ln: Number(ln), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, "base64url"),
    hash: Buffer.from(hash, "base64url"),
  };
}

/**
 * The cost is always the caller's (the email provider's `password.cost` option, OWASP's floor by
 * default): nothing process-wide decides how hard a hash is.
 */
export class PasswordBehavior extends Behavior {
  isSet(): boolean {
    return typeof this.state.__hash === "string";
  }

  async set(password: string, cost: ScryptCost): Promise<void> {
    const salt = randomBytes(16);
    const hash = await derive(password, salt, cost);
    this.state.__hash = `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
  }

  /** True when the stored hash is weaker than `cost` (or not ours): rehash after a successful login. */
  needsRehash(cost: ScryptCost): boolean {
    const stored = typeof this.state.__hash === "string" ? parse(this.state.__hash) : undefined;
    return !stored || stored.cost.ln < cost.ln || stored.cost.r < cost.r || stored.cost.p < cost.p;
  }

  /**
   * `cost` is what a missing hash is checked at, so that "no password" costs the same time;
   * `legacy` is asked, in order, for a stored hash that is not a `$scrypt$` PHC string.
   */
  async verify(password: string, cost: ScryptCost, legacy: readonly HashVerifier[] = []): Promise<boolean> {
    const hash = typeof this.state.__hash === "string" ? this.state.__hash : undefined;
    const stored = hash !== undefined ? parse(hash) : undefined;
    if (!stored) {
      const verifier = hash !== undefined ? legacy.find((v) => v.recognizes(hash)) : undefined;
      if (verifier && hash !== undefined) return verifier.verify(password, hash);
      await derive(password, randomBytes(16), cost);
      return false;
    }
    const candidate = await derive(password, stored.salt, stored.cost);
    return candidate.length === stored.hash.length && timingSafeEqual(candidate, stored.hash);
  }
}
