import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import OfflineBundleCache, { cacheKey, replayedContext } from "../../lib/local/bundle-cache.mjs";
import { BundleStore } from "../../lib/local/bundle-store.mjs";

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

describe("where the cache applies", () => {
  it("hooks serverless offline's start alone: packaging and deploying always bundle", () => {
    const hooks = Object.keys(new OfflineBundleCache({ pluginManager: { plugins: [] } }).hooks);
    expect(hooks.sort()).toEqual(["before:offline:start", "before:offline:start:init"]);
  });
});

describe("reusing kept bundles", () => {
  const plugin = () => ({
    buildOptions: {},
    functionEntries: [{ entry: "functions/fn.ts" }],
    buildCache: {} as Record<string, { context?: unknown }>,
    bundle: async () => undefined,
  });
  const cache = new OfflineBundleCache({ pluginManager: { plugins: [] } });

  it("hands serverless-esbuild a context per kept bundle, with the bundle where the build writes it", () => {
    mkdirSync(join(dir, "functions"), { recursive: true });
    writeFileSync(join(dir, "functions/fn.ts"), "export const handler = 1;\n");
    mkdirSync(join(dir, ".esbuild/.build/functions"), { recursive: true });
    writeFileSync(join(dir, ".esbuild/.build/functions/fn.mjs"), "bundled");
    const store = new BundleStore(join(dir, "cache"), dir);
    store.save("key", {
      inputs: ["functions/fn.ts"],
      outputs: [".esbuild/.build/functions/fn.mjs"],
      options: { "functions/fn.ts": { outdir: ".esbuild/.build/functions" } },
    });
    rmSync(join(dir, ".esbuild"), { recursive: true });
    const target = plugin();
    expect(cache.reuse(target, store, "key", esbuild, dir)).toBe(true);
    expect(Object.keys(target.buildCache)).toEqual(["functions/fn.ts"]);
    expect(readFileSync(join(dir, ".esbuild/.build/functions/fn.mjs"), "utf8")).toBe("bundled");
  });

  it("bundles instead when the kept state cannot be copied, leaving serverless-esbuild no context of it", () => {
    mkdirSync(join(dir, "functions"), { recursive: true });
    writeFileSync(join(dir, "functions/fn.ts"), "export const handler = 1;\n");
    mkdirSync(join(dir, ".esbuild/.build/functions"), { recursive: true });
    writeFileSync(join(dir, ".esbuild/.build/functions/fn.mjs"), "bundled");
    // Fault injection: another start drops the state while this one copies it.
    class DroppedStore extends BundleStore {
      override restore(): void {
        throw Object.assign(new Error("ENOENT: no such file or directory"), { code: "ENOENT" });
      }
    }
    const store = new DroppedStore(join(dir, "cache"), dir);
    store.save("key", { inputs: ["functions/fn.ts"], outputs: [".esbuild/.build/functions/fn.mjs"], options: { "functions/fn.ts": {} } });
    const target = plugin();
    expect(cache.reuse(target, store, "key", esbuild, dir)).toBe(false);
    expect(target.buildCache).toEqual({});
    // Nothing kept under another key: nothing to reuse, and nothing thrown.
    expect(cache.reuse(target, new BundleStore(join(dir, "cache"), dir), "other", esbuild, dir)).toBe(false);
  });
});
