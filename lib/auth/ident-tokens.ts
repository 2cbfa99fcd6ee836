import { CompactEncrypt, compactDecrypt } from "jose";

// jose imports a raw key into WebCrypto on every call; the same few keys seal every ident (a
// migration seals thousands), so each is imported once.
const imported = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function contentKey(key: Uint8Array): Promise<CryptoKey> {
  let found = imported.get(key);
  if (!found) {
    found = crypto.subtle.importKey("raw", new Uint8Array(key), "AES-GCM", false, ["encrypt", "decrypt"]);
    // A refused key is not kept: the next call reports the same error instead of a cached one.
    found.catch(() => imported.delete(key));
    imported.set(key, found);
  }
  return found;
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
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(tokens))).setProtectedHeader({ alg: "dir", enc: "A256GCM" }).encrypt(await contentKey(key));
  }

  /** The stored form, for writing the row back unchanged. */
  toStored(): string | undefined {
    return this.sealed;
  }

  async get(): Promise<Record<string, unknown> | undefined> {
    if (this.sealed === undefined) return undefined;
    const { plaintext } = await compactDecrypt(this.sealed, await contentKey(this.key), { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
    return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, unknown>;
  }
}
