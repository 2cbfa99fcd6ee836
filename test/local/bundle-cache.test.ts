import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import OfflineBundleCache, { cacheKey, replayedContext } from "../../lib/local/bundle-cache.mjs";
import { BundleStore } from "../../lib/local/bundle-store.mjs";
import { EsbuildBuilds } from "../../lib/local/esbuild-builds.mjs";

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
  const service = (minify: boolean, handlers = ["functions/rest.handler", "functions/rest.read", "functions/graphql.handler"]) => ({
    provider: { name: "aws", runtime: "nodejs22.x" },
    custom: { esbuild: { minify, target: "node22", plugins: [] } },
    functions: Object.fromEntries(handlers.map((handler, i) => [`f${i}`, { handler }])),
  });

  it("changes with the service's esbuild options, runtime and handlers, the lockfile, tsconfig.json and esbuild's version, and nothing else", () => {
    const key = cacheKey(service(true), dir, "0.28.2");
    expect(cacheKey(service(true), dir, "0.28.2")).toBe(key);
    // The recorder the cache adds is not an option of the project's.
    expect(cacheKey({ ...service(true), custom: { esbuild: { minify: true, target: "node22" } } }, dir, "0.28.2")).toBe(key);
    // Functions named otherwise, same handlers: the same bundles.
    expect(
      cacheKey(
        {
          ...service(true),
          functions: { a: { handler: "functions/graphql.handler" }, b: { handler: "functions/rest.read" }, c: { handler: "functions/rest.handler" } },
        },
        dir,
        "0.28.2",
      ),
    ).toBe(key);
    expect(cacheKey(service(false), dir, "0.28.2")).not.toBe(key);
    expect(cacheKey(service(true), dir, "0.28.3")).not.toBe(key);
    expect(cacheKey({ ...service(true), provider: { name: "aws", runtime: "nodejs20.x" } }, dir, "0.28.2")).not.toBe(key);
    expect(cacheKey(service(true, ["functions/rest.handler"]), dir, "0.28.2")).not.toBe(key);
    writeFileSync(join(dir, "package-lock.json"), "{}");
    const locked = cacheKey(service(true), dir, "0.28.2");
    expect(locked).not.toBe(key);
    writeFileSync(join(dir, "tsconfig.json"), "{}");
    expect(cacheKey(service(true), dir, "0.28.2")).not.toBe(locked);
  });
});

describe("where the cache applies", () => {
  it("hooks serverless offline's start alone (and serverless's initialize, which records offline's builds only): packaging and deploying always bundle", () => {
    const hooks = Object.keys(new OfflineBundleCache({ pluginManager: { plugins: [] }, service: {} }).hooks);
    expect(hooks.sort()).toEqual(["before:offline:start", "before:offline:start:init", "initialize", "offline:start", "offline:start:init"]);
  });

  it("keeps a miss's bundles once serverless-esbuild built them, and nothing when a build failed", () => {
    mkdirSync(join(dir, "functions"), { recursive: true });
    writeFileSync(join(dir, "functions/fn.ts"), "export const handler = 1;\n");
    mkdirSync(join(dir, ".esbuild/.build/functions"), { recursive: true });
    writeFileSync(join(dir, ".esbuild/.build/functions/fn.mjs"), "bundled");
    const builds = new EsbuildBuilds();
    const metafile = { inputs: { "functions/fn.ts": {} }, outputs: { ".esbuild/.build/functions/fn.mjs": {} } };
    builds.builds.set("functions/fn.ts", { options: { outdir: join(dir, ".esbuild/.build/functions") }, result: { errors: [], warnings: [], metafile } });
    const keeps = (failed: boolean) => {
      const cache = new OfflineBundleCache({ pluginManager: { plugins: [] }, service: {} }, {}, undefined, builds);
      const store = new BundleStore(join(dir, failed ? "failed" : "cache"), dir);
      if (failed) builds.builds.set("functions/other.ts", { options: {}, result: { errors: [{}], warnings: [] } });
      cache.miss = { key: "key", store, serviceDir: dir };
      cache.keep();
      return store.find("key");
    };
    const kept = keeps(false);
    expect(kept?.manifest.outputs).toEqual([".esbuild/.build/functions/fn.mjs"]);
    // Kept relative to the project: a copy of the project reuses them.
    expect(kept?.manifest.options).toEqual({ "functions/fn.ts": { outdir: ".esbuild/.build/functions" } });
    expect(keeps(true)).toBeUndefined();
  });
});

describe("reusing kept bundles", () => {
  const plugin = () => ({ buildCache: {} as Record<string, { context?: unknown }> });
  const cache = new OfflineBundleCache({ pluginManager: { plugins: [] }, service: {} });

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
