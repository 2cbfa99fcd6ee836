// @ts-check
// What the offline-only plugins that work with serverless-esbuild's bundles (bundle-cache.mjs,
// live-reload/offline-bundles.mjs) find in the running Serverless instance, checked against what
// they rely on (lib/local/README.md, "Borrowed internals"): its esbuild context per function entry,
// which serverless-esbuild keeps on its instance and exposes no other way. Everything else they
// need comes through public paths (serverless-esbuild's `plugins` option, esbuild's plugin API,
// serverless's hooks and service: lib/local/esbuild-builds.mjs). Plain JS (checked by tsc through
// its JSDoc types) because the Serverless CLI loads plugins itself.
import { createRequire } from "node:module";
import { BORROWED, expectBorrowed, reachBorrowedSync } from "./borrowed.mjs";

/**
 * @typedef {object} ServerlessInstance
 * @property {string} [serviceDir]
 * @property {{ servicePath?: string, serviceDir?: string }} [config]
 * @property {{ plugins: unknown[] }} pluginManager
 * @property {{ commands?: string[] }} [processedInput]
 */

/**
 * The part of serverless-esbuild's instance lib/local reads and sets: entry ("functions/rest.ts")
 * -> the esbuild context it bundled that entry with, whose `rebuild()` its `bundle()` calls.
 * @typedef {object} ServerlessEsbuild
 * @property {Record<string, { context?: unknown }>} buildCache
 */

/**
 * The project serverless runs in.
 * @param {ServerlessInstance} serverless
 */
export function serviceDirOf(serverless) {
  return serverless.serviceDir ?? serverless.config?.serviceDir ?? serverless.config?.servicePath ?? process.cwd();
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
 * offline hook runs); throws naming the entry when it is not there.
 * @param {object} plugin
 * @returns {ServerlessEsbuild}
 */
export function checkServerlessEsbuild(plugin) {
  const cache = /** @type {Record<string, unknown>} */ (plugin).buildCache;
  expectBorrowed(BORROWED.esbuildBuildCache, typeof cache === "object" && cache !== null && !Array.isArray(cache), `buildCache is ${typeof cache}`);
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
