// @ts-check
// What the offline-only plugins that work with serverless-esbuild's bundles (bundle-cache.mjs,
// live-reload/offline-bundles.mjs) find in the running Serverless instance. Plain JS (checked by
// tsc through its JSDoc types) because the Serverless CLI loads plugins itself.

/** @typedef {{ serviceDir?: string, config?: { servicePath?: string }, pluginManager: { plugins: unknown[] } }} ServerlessInstance */

/**
 * The project serverless runs in.
 * @param {ServerlessInstance} serverless
 */
export function serviceDirOf(serverless) {
  return serverless.serviceDir ?? serverless.config?.servicePath ?? process.cwd();
}

/**
 * serverless-esbuild's instance, found by what it holds (its contexts' cache and its bundle step)
 * rather than by its class name; the caller says what else it reads of it.
 * @param {ServerlessInstance} serverless
 * @returns {object | undefined}
 */
export function serverlessEsbuildOf(serverless) {
  return /** @type {object | undefined} */ (
    serverless.pluginManager.plugins.find((p) => typeof p === "object" && p !== null && "buildCache" in p && "bundle" in p && typeof p.bundle === "function")
  );
}
