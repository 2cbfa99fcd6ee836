import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// The one JWE form idents use (RFC 7516 compact serialization, `dir` + `A256GCM`), sealed and
// opened with node:crypto's AES-256-GCM rather than jose: the session routes' function seals when
// v3 compatibility upgrades a user's idents, and jose's JWE code (~17 KB) was compiled at each of
// its cold starts for that. Tokens stay readable by any JWE library (test/auth/ident-tokens.test.ts
// opens ours with jose and jose's with ours).

const HEADER = { alg: "dir", enc: "A256GCM" } as const;
// base64url of `{"alg":"dir","enc":"A256GCM"}`, written out: a module whose top level calls nothing
// is left out of the bundles that import it but never seal (the barrel lib/auth/index.ts).
const ENCODED_HEADER = "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

function aesKey(key: Uint8Array): Uint8Array {
  if (key.length !== KEY_BYTES) throw new Error(`ident tokens need a ${KEY_BYTES * 8}-bit key`);
  return key;
}

function decoded(part: string, what: string): Buffer {
  // Buffer's decoder skips characters outside the alphabet: refuse them instead.
  if (!BASE64URL.test(part)) throw new Error(`sealed ident tokens: the ${what} is not base64url`);
  return Buffer.from(part, "base64url");
}

/**
 * The protected header of a sealed value, refused unless it is exactly what we seal with: `dir`
 * and `A256GCM`, nothing to compress (`zip`) and no extension the reader must understand (`crit`).
 */
function checkHeader(encoded: string): void {
  let header: unknown;
  try {
    header = JSON.parse(decoded(encoded, "header").toString("utf8"));
  } catch {
    throw new Error("sealed ident tokens: the header is not JSON");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) throw new Error("sealed ident tokens: the header is not an object");
  const fields = header as Record<string, unknown>;
  if (fields.alg !== HEADER.alg || fields.enc !== HEADER.enc) throw new Error("sealed ident tokens: only alg dir with enc A256GCM is accepted");
  if ("zip" in fields || "crit" in fields) throw new Error("sealed ident tokens: zip and crit are not accepted");
}

function seal(plaintext: Buffer, key: Uint8Array): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", aesKey(key), iv, { authTagLength: TAG_BYTES });
  // The additional authenticated data is the encoded protected header (RFC 7516, 5.1 step 14).
  cipher.setAAD(Buffer.from(ENCODED_HEADER, "ascii"));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [ENCODED_HEADER, "", iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
}

function open(sealed: string, key: Uint8Array): Buffer {
  const parts = sealed.split(".");
  if (parts.length !== 5) throw new Error("sealed ident tokens: not a compact JWE");
  const [header, encryptedKey, iv, ciphertext, tag] = parts as [string, string, string, string, string];
  checkHeader(header);
  // `dir` uses the shared key itself: a JWE carrying an encrypted key is not one of ours.
  if (encryptedKey !== "") throw new Error("sealed ident tokens: alg dir carries no encrypted key");
  const ivBytes = decoded(iv, "IV");
  const tagBytes = decoded(tag, "tag");
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error("sealed ident tokens: wrong IV or tag length");
  const decipher = createDecipheriv("aes-256-gcm", aesKey(key), ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(header, "ascii"));
  decipher.setAuthTag(tagBytes);
  // final() throws when the tag does not authenticate the header, IV and ciphertext under this key.
  return Buffer.concat([decipher.update(decoded(ciphertext, "ciphertext")), decipher.final()]);
}

/**
 * A provider's tokens as stored on an ident: a compact JWE (`dir` + `A256GCM`) under a key derived
 * from the application secret (info "ident-tokens"). Read with `await ident.tokens.get()`.
 */
export class IdentTokens {
  constructor(
    private readonly sealed: string | undefined,
    private readonly key: Uint8Array,
  ) {}

  static async seal(tokens: Record<string, unknown>, key: Uint8Array): Promise<string> {
    return seal(Buffer.from(JSON.stringify(tokens), "utf8"), key);
  }

  /** The stored form, for writing the row back unchanged. */
  toStored(): string | undefined {
    return this.sealed;
  }

  async get(): Promise<Record<string, unknown> | undefined> {
    if (this.sealed === undefined) return undefined;
    return JSON.parse(open(this.sealed, this.key).toString("utf8")) as Record<string, unknown>;
  }
}
