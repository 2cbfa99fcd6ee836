import { CompactEncrypt, compactDecrypt } from "jose";

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
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(tokens))).setProtectedHeader({ alg: "dir", enc: "A256GCM" }).encrypt(key);
  }

  /** The stored form, for writing the row back unchanged. */
  toStored(): string | undefined {
    return this.sealed;
  }

  async get(): Promise<Record<string, unknown> | undefined> {
    if (this.sealed === undefined) return undefined;
    const { plaintext } = await compactDecrypt(this.sealed, this.key, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
    return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, unknown>;
  }
}
