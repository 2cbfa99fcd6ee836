import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** Every module an entry reaches through its imports, used or not (esbuild's metafile, before tree shaking). */
async function reached(entry: string): Promise<string[]> {
  const { metafile } = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, platform: "node", format: "esm", logLevel: "silent" });
  return Object.keys(metafile.inputs);
}

// Whatever tree shaking keeps today, no import path from what identifies callers may lead to jose:
// its verifying half would be parsed at every cold start of every such function.
describe("what access.ts reaches through its imports", () => {
  it.each(["lib/auth/access.ts", "lib/auth/access-token-verify.ts", "lib/auth/keys.ts"])(
    "%s reaches no jose",
    async (entry) => {
      const inputs = await reached(entry);
      expect(inputs.filter((path) => path.includes("node_modules/jose/"))).toEqual([]);
      expect(inputs.length).toBeGreaterThan(1);
    },
    60_000,
  );

  it("lib/auth/access-token.ts, the signing half, does (the check sees jose where it is)", async () => {
    expect((await reached("lib/auth/access-token.ts")).some((path) => path.includes("node_modules/jose/"))).toBe(true);
  }, 60_000);
});
