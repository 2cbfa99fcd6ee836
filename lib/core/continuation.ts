import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { BadQueryError } from "./errors.ts";

/**
 * Continuation tokens are sealed with AES-256-GCM: opaque to clients (keys of other records are not
 * readable), tamper-evident (any change fails authentication), and bound to the query that issued
 * them through the associated data (a token replayed on another query fails too).
 */
export class ContinuationSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync("sha256", secret, "continuation", "continuation-token-v1", 32));
  }

  seal(scope: string, cursor: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(scopeDigest(scope));
    const body = Buffer.concat([cipher.update(JSON.stringify(cursor), "utf8"), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  open(scope: string, token: string): unknown {
    const raw = Buffer.from(token, "base64url");
    if (raw.length < 29 || raw.toString("base64url") !== token) throw invalid();
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    decipher.setAAD(scopeDigest(scope));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    try {
      const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
      return JSON.parse(text) as unknown;
    } catch {
      throw invalid();
    }
  }
}

function scopeDigest(scope: string): Buffer {
  return createHash("sha256").update(scope).digest();
}

function invalid(): BadQueryError {
  const message = "the continuation token is invalid, or belongs to another query";
  return new BadQueryError(message, [{ path: "/continuationToken", message }]);
}
