import { createHash } from "node:crypto";
import { COMMON_PASSWORDS } from "./common-passwords-data.ts";

/**
 * The most common passwords, as a Golomb-Rice coded set of hashes (scripts/common-passwords.ts
 * builds `common-passwords-data.ts` from the list @zxcvbn-ts/language-common ships, MIT): each
 * lowercased password hashed into [0, count x 2^bits), the sorted hashes stored as gaps, a gap
 * as its quotient by 2^bits in unary and its remainder in `bits` bits. About `bits` + 2 bits a
 * password instead of its text, so the auth functions' bundles carry tens of thousands of them.
 * A password not on the list matches with odds of 1 in 2^bits: it is refused as common, which
 * costs its owner another choice and never admits a common one.
 */
export function passwordHash(password: string, modulus: number): number {
  const digest = createHash("sha256").update(password.toLowerCase(), "utf8").digest();
  return digest.readUIntBE(0, 6) % modulus;
}

let decoded: Uint32Array | undefined;

/** The sorted hashes, decoded once per process. */
function hashes(): Uint32Array {
  if (decoded) return decoded;
  const { count, bits, data } = COMMON_PASSWORDS;
  const bytes = Buffer.from(data, "base64");
  const values = new Uint32Array(count);
  let bit = 0;
  const next = () => ((bytes[bit >> 3] as number) >> (7 - (bit++ & 7))) & 1;
  let value = 0;
  for (let i = 0; i < count; i++) {
    let quotient = 0;
    while (next() === 1) quotient++;
    let remainder = 0;
    for (let b = 0; b < bits; b++) remainder = remainder * 2 + next();
    value += quotient * 2 ** bits + remainder;
    values[i] = value;
  }
  decoded = values;
  return values;
}

/** Whether the password, in any letter case, is one of the list's. */
export function isCommonPassword(password: string): boolean {
  const { count, bits } = COMMON_PASSWORDS;
  const wanted = passwordHash(password, count * 2 ** bits);
  const values = hashes();
  let low = 0;
  let high = values.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = values[middle] as number;
    if (at === wanted) return true;
    if (at < wanted) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
