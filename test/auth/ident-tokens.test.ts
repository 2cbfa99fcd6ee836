import { createCipheriv, randomBytes } from "node:crypto";
import { CompactEncrypt, compactDecrypt } from "jose";
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../lib/auth/crypto.ts";
import { IdentTokens } from "../../lib/auth/ident-tokens.ts";

/** A JWE authentic under `key` (AES-256-GCM over the given header as AAD), whatever its header says. */
function authentic(header: Record<string, unknown>, plaintext: string, key: Uint8Array, options: { encryptedKey?: string; ivBytes?: number } = {}): string {
  const encoded = Buffer.from(JSON.stringify(header)).toString("base64url");
  const iv = randomBytes(options.ivBytes ?? 12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(encoded, "ascii"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [encoded, options.encryptedKey ?? "", iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
}

describe("provider tokens sealed on an ident", () => {
  const key = deriveKey("a".repeat(48), "ident-tokens");
  // Values no ciphertext holds by chance ("rt" is in about one base64url seal in forty).
  const tokens = { access_token: "access-token-in-clear", refresh_token: "refresh-token-in-clear", expires_at: 1_800_000_000 };

  it("opens with the key that sealed them, each seal under a fresh IV, one key across many calls", async () => {
    const first = await IdentTokens.seal(tokens, key);
    const second = await IdentTokens.seal(tokens, key);
    expect(first).not.toBe(second);
    expect(first).not.toContain(tokens.refresh_token);
    expect(first).not.toContain(Buffer.from(tokens.refresh_token).toString("base64url"));
    expect(await new IdentTokens(first, key).get()).toEqual(tokens);
    expect(await new IdentTokens(second, key).get()).toEqual(tokens);
  });

  it("refuses another secret's key and a tampered token", async () => {
    const sealed = await IdentTokens.seal(tokens, key);
    const other = deriveKey("b".repeat(48), "ident-tokens");
    await expect(new IdentTokens(sealed, other).get()).rejects.toThrow();
    const parts = sealed.split(".");
    const cipher = parts[3] as string;
    parts[3] = `${cipher.slice(0, -2)}${cipher.endsWith("AA") ? "BB" : "AA"}`;
    await expect(new IdentTokens(parts.join("."), key).get()).rejects.toThrow();
    // The refusals leave the right key usable.
    expect(await new IdentTokens(sealed, key).get()).toEqual(tokens);
  });

  it("are a standard compact JWE: jose opens ours, and ours opens jose's", async () => {
    const ours = await IdentTokens.seal(tokens, key);
    const { plaintext, protectedHeader } = await compactDecrypt(ours, key, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
    expect(protectedHeader).toEqual({ alg: "dir", enc: "A256GCM" });
    expect(ours.split(".")[0]).toBe(Buffer.from(JSON.stringify({ alg: "dir", enc: "A256GCM" })).toString("base64url"));
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual(tokens);
    const theirs = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(tokens))).setProtectedHeader({ enc: "A256GCM", alg: "dir" }).encrypt(key);
    expect(await new IdentTokens(theirs, key).get()).toEqual(tokens);
  });

  it("refuses authentic values whose form is not the one it seals: other algorithms, zip, crit, an encrypted key, other IV sizes, stray characters", async () => {
    const plaintext = JSON.stringify(tokens);
    const good = authentic({ alg: "dir", enc: "A256GCM" }, plaintext, key);
    expect(await new IdentTokens(good, key).get()).toEqual(tokens);
    const refused = [
      authentic({ alg: "dir", enc: "A128GCM" }, plaintext, key),
      authentic({ alg: "A256KW", enc: "A256GCM" }, plaintext, key),
      authentic({ alg: "dir" }, plaintext, key),
      authentic({ alg: "dir", enc: "A256GCM", zip: "DEF" }, plaintext, key),
      authentic({ alg: "dir", enc: "A256GCM", crit: ["exp"], exp: 1 }, plaintext, key),
      authentic({ alg: "dir", enc: "A256GCM" }, plaintext, key, { encryptedKey: "AAAA" }),
      authentic({ alg: "dir", enc: "A256GCM" }, plaintext, key, { ivBytes: 16 }),
      `${good}.`,
      good.replace(".", "!."),
      "not a token",
    ];
    for (const sealed of refused) await expect(new IdentTokens(sealed, key).get()).rejects.toThrow();
  });
});
