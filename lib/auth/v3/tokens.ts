import { hkdfSync } from "node:crypto";
import { CompactEncrypt, compactDecrypt } from "jose";

/**
 * Provider tokens at rest (lib/auth/CONTRACT.md): a compact JWE, `dir` + `A256GCM`, whose key is
 * derived from the application secret with HKDF-SHA-256 (salt "modelrest-auth", the auth service's `deriveKey`), info "ident-tokens". The migration seals
 * v3's plaintext `__tokens` with it; the authentication service opens them (`ident.tokens.get()`).
 */
export class TokenSealer {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new Uint8Array(hkdfSync("sha256", secret, "modelrest-auth", "ident-tokens", 32));
  }

  seal(tokens: Record<string, unknown>): Promise<string> {
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(tokens)))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
      .encrypt(this.key);
  }

  async open(sealed: string): Promise<Record<string, unknown>> {
    const { plaintext } = await compactDecrypt(sealed, this.key, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
    return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, unknown>;
  }
}
