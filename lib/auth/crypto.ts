import { createHash, createHmac, hkdfSync, randomBytes } from "node:crypto";

/** 32 random bytes, base64url: session cookies and refresh tokens (CONTRACT.md). */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** What the tables hold instead of a token: a leaked table yields no usable credential. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** A 256-bit key for one purpose, derived from the application secret (HKDF-SHA256). */
export function deriveKey(secret: string, info: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, "modelrest-auth", info, 32));
}

/** HMAC-SHA256 of `value` under `key`, base64url: deterministic derivations (a refresh token's successor). */
export function hmac(key: Uint8Array, value: string): string {
  return createHmac("sha256", key).update(value, "utf8").digest("base64url");
}
