// @ts-check
// What the offline-only plugins that work with serverless-esbuild's bundles (bundle-cache.mjs,
// live-reload/offline-bundles.mjs) find in the running Serverless instance, checked against what
// they rely on (lib/local/README.md, "Borrowed internals"): serverless-esbuild exports its plugin
// class and nothing to reach its state. Plain JS (checked by tsc through its JSDoc types) because
// the Serverless CLI loads plugins itself.
import { createRequire } from "node:module";
import { BORROWED, expectBorrowed, reachBorrowedSync } from "./borrowed.mjs";

/** @typedef {{ serviceDir?: string, config?: { servicePath?: string }, pluginManager: { plugins: unknown[] } }} ServerlessInstance */

/**
 * The part of serverless-esbuild's instance lib/local reads and sets.
 * @typedef {object} ServerlessEsbuild
 * @property {Record<string, unknown> & { plugins?: unknown, skipBuild?: boolean, metafile?: boolean }} buildOptions
 * @property {string} buildDirPath
 * @property {{ entry: string }[]} functionEntries
 * @property {Record<string, { context?: unknown }>} buildCache
 * @property {() => Promise<void>} bundle
 */

/**
 * The project serverless runs in.
 * @param {ServerlessInstance} serverless
 */
export function serviceDirOf(serverless) {
  return serverless.serviceDir ?? serverless.config?.servicePath ?? process.cwd();
}

/** The plugin class the installed serverless-esbuild exports (its main module; Serverless loads the same file). */
export function serverlessEsbuildClass() {
  return reachBorrowedSync(BORROWED.esbuildInstance, () => {
    /** @type {unknown} */
    const loaded = createRequire(import.meta.url)("serverless-esbuild");
    const Plugin = typeof loaded === "function" ? loaded : /** @type {{ default?: unknown }} */ (loaded)?.default;
    expectBorrowed(BORROWED.esbuildInstance, typeof Plugin === "function", "the package exports no plugin class");
    return /** @type {new (...args: unknown[]) => object} */ (Plugin);
  });
}

/**
 * Checks that `plugin` holds what lib/local reads (after serverless's `initialize`, as every
 * offline hook runs); throws naming the first entry that is not there.
 * @param {object} plugin
 * @returns {ServerlessEsbuild}
 */
export function checkServerlessEsbuild(plugin) {
  const p = /** @type {Record<string, unknown>} */ (plugin);
  const cache = p.buildCache;
  expectBorrowed(BORROWED.esbuildBuildCache, typeof cache === "object" && cache !== null && !Array.isArray(cache), `buildCache is ${typeof cache}`);
  expectBorrowed(BORROWED.esbuildBundle, typeof p.bundle === "function", `bundle is ${typeof p.bundle}`);
  const options = p.buildOptions;
  expectBorrowed(BORROWED.esbuildBuildOptions, typeof options === "object" && options !== null, `buildOptions is ${typeof options}`);
  expectBorrowed(BORROWED.esbuildBuildDirPath, typeof p.buildDirPath === "string", `buildDirPath is ${typeof p.buildDirPath}`);
  const entries = reachBorrowedSync(BORROWED.esbuildFunctionEntries, () => p.functionEntries);
  expectBorrowed(
    BORROWED.esbuildFunctionEntries,
    Array.isArray(entries) && entries.every((e) => typeof e?.entry === "string"),
    "functionEntries is not a list of { entry }",
  );
  return /** @type {ServerlessEsbuild} */ (/** @type {unknown} */ (plugin));
}

/**
 * serverless-esbuild's instance among the loaded plugins, checked; throws naming what is missing.
 * @param {ServerlessInstance} serverless
 * @returns {ServerlessEsbuild}
 */
export function serverlessEsbuildOf(serverless) {
  const Plugin = serverlessEsbuildClass();
  const plugin = serverless.pluginManager.plugins.find((p) => p instanceof Plugin);
  expectBorrowed(BORROWED.esbuildInstance, plugin !== undefined, "no loaded plugin is an instance of the class serverless-esbuild exports");
  return checkServerlessEsbuild(/** @type {object} */ (plugin));
}
