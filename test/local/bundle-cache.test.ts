import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cacheKey, replayedContext } from "../../lib/local/bundle-cache.mjs";

// The esbuild serverless-esbuild bundles with, as the plugin loads it.
const esbuild = createRequire(createRequire(import.meta.url).resolve("serverless-esbuild"))("esbuild") as typeof import("esbuild");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bundle-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a bundle context restored from the cache", () => {
  it("reports its first build as done without building, then builds as esbuild would with the kept options", async () => {
    writeFileSync(join(dir, "fn.ts"), "export const handler = async (): Promise<number> => 6 * 7;\n");
    const options = {
      entryPoints: [join(dir, "fn.ts")],
      outdir: join(dir, "out"),
      bundle: true,
      format: "esm" as const,
      platform: "node" as const,
      minify: true,
    };
    const context = replayedContext(esbuild, options);
    try {
      expect(await context.rebuild()).toEqual({ errors: [], warnings: [] });
      expect(existsSync(join(dir, "out", "fn.js"))).toBe(false);
      // Live reload's rebuild: a real one, with the same output as esbuild's own build.
      const rebuilt = await context.rebuild();
      expect(rebuilt.errors).toEqual([]);
      const replayed = readFileSync(join(dir, "out", "fn.js"), "utf8");
      await esbuild.build({ ...options, outdir: join(dir, "direct") });
      expect(replayed).toBe(readFileSync(join(dir, "direct", "fn.js"), "utf8"));
      writeFileSync(join(dir, "fn.ts"), "export const handler = async (): Promise<number> => 43;\n");
      await context.rebuild();
      expect(readFileSync(join(dir, "out", "fn.js"), "utf8")).toContain("43");
    } finally {
      await context.dispose();
    }
  });
});

describe("the cache key", () => {
  const plugin = (minify: boolean) => ({
    buildOptions: { minify, target: "node22", plugins: [] },
    buildDirPath: join(dir, ".esbuild/.build"),
    functionEntries: [{ entry: "functions/rest.ts" }, { entry: "functions/rest.ts" }, { entry: "functions/graphql.ts" }],
    buildCache: {},
    bundle: async () => undefined,
  });

  it("changes with serverless-esbuild's options, the lockfile, tsconfig.json and esbuild's version, and nothing else", () => {
    const key = cacheKey(plugin(true), dir, "0.28.2");
    expect(cacheKey(plugin(true), dir, "0.28.2")).toBe(key);
    // The recorder the cache adds is not an option of the project's.
    expect(cacheKey({ ...plugin(true), buildOptions: { minify: true, target: "node22" } }, dir, "0.28.2")).toBe(key);
    expect(cacheKey(plugin(false), dir, "0.28.2")).not.toBe(key);
    expect(cacheKey(plugin(true), dir, "0.28.3")).not.toBe(key);
    expect(cacheKey({ ...plugin(true), functionEntries: [{ entry: "functions/rest.ts" }] }, dir, "0.28.2")).not.toBe(key);
    writeFileSync(join(dir, "package-lock.json"), "{}");
    const locked = cacheKey(plugin(true), dir, "0.28.2");
    expect(locked).not.toBe(key);
    writeFileSync(join(dir, "tsconfig.json"), "{}");
    expect(cacheKey(plugin(true), dir, "0.28.2")).not.toBe(locked);
  });
});
