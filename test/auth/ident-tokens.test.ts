import { describe, expect, it } from "vitest";
import { deriveKey } from "../../lib/auth/crypto.ts";
import { IdentTokens } from "../../lib/auth/ident-tokens.ts";

describe("provider tokens sealed on an ident", () => {
  const key = deriveKey("a".repeat(48), "ident-tokens");
  const tokens = { access_token: "at", refresh_token: "rt", expires_at: 1_800_000_000 };

  it("opens with the key that sealed them, each seal under a fresh IV, one key across many calls", async () => {
    const first = await IdentTokens.seal(tokens, key);
    const second = await IdentTokens.seal(tokens, key);
    expect(first).not.toBe(second);
    expect(first).not.toContain("rt");
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
});
