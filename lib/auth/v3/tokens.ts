import { deriveKey } from "../crypto.ts";
import { IdentTokens } from "../ident-tokens.ts";

/**
 * Seals v3's plaintext provider tokens exactly as the authentication service seals v4 ones (a
 * compact JWE under `deriveKey(secret, "ident-tokens")`, lib/auth/CONTRACT.md), so that
 * `await ident.tokens.get()` opens what the migration wrote.
 */
export class TokenSealer {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = deriveKey(secret, "ident-tokens");
  }

  seal(tokens: Record<string, unknown>): Promise<string> {
    return IdentTokens.seal(tokens, this.key);
  }

  async open(sealed: string): Promise<Record<string, unknown>> {
    return (await new IdentTokens(sealed, this.key).get()) ?? {};
  }
}
