// @ts-check
// Offline only: a start whose sources match an earlier start's copies that start's bundles instead
// of bundling every function again. esbuild bundling every function is about 10 CPU-seconds of a
// start (half of it), and the same sources are started again and again: by a developer who stops
// and starts, and by the test suite, whose service files each start their own `npm start`.
//
// Listed before serverless-esbuild, so this runs on `before:offline:start:init` before its bundle:
// - On a miss, serverless-esbuild bundles as ever, with one esbuild plugin added that records
//   each bundle's options and asks esbuild for the list of files it read; the outputs, that list
//   and the options are then kept (lib/local/bundle-store.mjs).
// - On a hit, the kept outputs are copied into .esbuild/.build/, and serverless-esbuild is handed a
//   context per bundle whose first build is that copy. Each context builds for real from the kept
//   options the first time live reload rebuilds it, so live reload works as after a miss.
// The key holds everything else a bundle depends on: serverless-esbuild's options, the functions'
// entries, both packages' versions, the lockfiles and tsconfig.json. A deploy never comes here.
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { BundleStore } from "./bundle-store.mjs";
import { serverlessEsbuildOf, serviceDirOf } from "./serverless-esbuild-instance.mjs";

/** Under the project's node_modules: a project copy that links node_modules shares it. */
export const CACHE_DIR = "node_modules/.cache/modelrest-bundles";
/** Options whose value is a path in the project: kept relative, so a copy of the project can reuse them. */
const PATH_OPTIONS = ["outdir", "outfile", "absWorkingDir"];

/**
 * @typedef {{ errors: unknown[], warnings: unknown[], metafile?: { inputs: Record<string, unknown>, outputs: Record<string, unknown> } }} BuildResult
 * @typedef {{ rebuild: () => Promise<BuildResult>, dispose: () => Promise<void>, cancel: () => Promise<void> }} EsbuildContext
 * @typedef {{ initialOptions: Record<string, unknown>, onEnd: (callback: (result: BuildResult) => void) => void }} PluginBuild
 * @typedef {{ name: string, setup: (build: PluginBuild) => void }} EsbuildPlugin
 * @typedef {{ context: (options: import("esbuild").BuildOptions) => Promise<EsbuildContext>, version: string }} Esbuild
 * @typedef {object} ServerlessEsbuild the part of serverless-esbuild's instance this reads and sets
 * @property {Record<string, unknown> & { plugins?: unknown, skipBuild?: boolean, metafile?: boolean }} [buildOptions]
 * @property {string} [buildDirPath]
 * @property {{ entry: string }[]} functionEntries
 * @property {Record<string, { context?: unknown }>} buildCache
 * @property {() => Promise<void>} bundle
 * @typedef {import("./serverless-esbuild-instance.mjs").ServerlessInstance} Serverless
 */

const requireEsbuildPlugin = () => createRequire(createRequire(import.meta.url).resolve("serverless-esbuild"));

/** The esbuild serverless-esbuild loads, so a replayed context builds with the same one. */
function loadEsbuild() {
  return /** @type {Esbuild} */ (requireEsbuildPlugin()("esbuild"));
}

function serverlessEsbuildVersion() {
  const main = createRequire(import.meta.url).resolve("serverless-esbuild");
  return JSON.parse(readFileSync(join(dirname(main), "..", "package.json"), "utf8")).version;
}

/** @param {string} path */
function fileHash(path) {
  return existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : null;
}

/**
 * Everything a bundle depends on besides the files esbuild reads.
 * @param {ServerlessEsbuild} plugin
 * @param {string} serviceDir
 * @param {string} esbuildVersion
 */
export function cacheKey(plugin, serviceDir, esbuildVersion) {
  const { plugins: _plugins, ...buildOptions } = plugin.buildOptions ?? {};
  const described = JSON.stringify({
    format: 1,
    esbuild: esbuildVersion,
    serverlessEsbuild: serverlessEsbuildVersion(),
    buildOptions,
    buildDir: relative(serviceDir, plugin.buildDirPath ?? ""),
    entries: [...new Set(plugin.functionEntries.map((e) => e.entry))].sort(),
    lock: fileHash(join(serviceDir, "package-lock.json")),
    installed: fileHash(join(serviceDir, "node_modules", ".package-lock.json")),
    tsconfig: fileHash(join(serviceDir, "tsconfig.json")),
  });
  return createHash("sha256").update(described).digest("hex").slice(0, 32);
}

/**
 * @param {Record<string, unknown>} options
 * @param {(path: string) => string} map
 */
function mapPaths(options, map) {
  const mapped = { ...options };
  for (const name of PATH_OPTIONS) if (typeof mapped[name] === "string") mapped[name] = map(/** @type {string} */ (mapped[name]));
  return mapped;
}

/**
 * A context whose first build is the restored copy, and whose later builds are esbuild's own.
 * @param {Esbuild} esbuild
 * @param {import("esbuild").BuildOptions} options
 * @returns {EsbuildContext}
 */
export function replayedContext(esbuild, options) {
  let restored = true;
  /** @type {EsbuildContext | undefined} */
  let real;
  return {
    async rebuild() {
      if (restored) {
        restored = false;
        return { errors: [], warnings: [] };
      }
      real ??= await esbuild.context(options);
      return real.rebuild();
    },
    async dispose() {
      await real?.dispose();
    },
    async cancel() {
      await real?.cancel();
    },
  };
}

export default class OfflineBundleCache {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.done = false;
    const prepare = () => this.prepare();
    this.hooks = { "before:offline:start:init": prepare, "before:offline:start": prepare };
  }

  /**
   * Restores the bundles of `key` if the sources match them, and hands serverless-esbuild their
   * contexts; false when it must bundle. A cache that cannot be read (another start dropping the
   * state it was copying, a disk error) only means bundling: whatever was half copied is written
   * over by the build.
   * @param {ServerlessEsbuild} plugin
   * @param {BundleStore} store
   * @param {string} key
   * @param {Esbuild} esbuild
   * @param {string} serviceDir
   */
  reuse(plugin, store, key, esbuild, serviceDir) {
    try {
      const found = store.find(key);
      if (found === undefined) return false;
      store.restore(found);
      for (const [entry, kept] of Object.entries(found.manifest.options)) {
        const restored = /** @type {import("esbuild").BuildOptions} */ (mapPaths(kept, (p) => resolve(serviceDir, p)));
        plugin.buildCache[entry] = { context: replayedContext(esbuild, restored) };
      }
      console.log(`esbuild: ${Object.keys(found.manifest.options).length} bundles unchanged since an earlier start, copied from ${CACHE_DIR}`);
      return true;
    } catch (error) {
      for (const entry of Object.keys(plugin.buildCache)) delete plugin.buildCache[entry];
      console.log(`esbuild: the bundles kept in ${CACHE_DIR} could not be read (${error instanceof Error ? error.message : String(error)}); bundling`);
      return false;
    }
  }

  prepare() {
    if (this.done) return;
    this.done = true;
    // Throws, naming it, when what it relies on of serverless-esbuild is not there: a cache that
    // turned itself off without a word would only make every start slower.
    const plugin = /** @type {ServerlessEsbuild} */ (serverlessEsbuildOf(this.serverless));
    const options = plugin.buildOptions ?? {};
    // Only what it can replay: no esbuild plugins of the project's own (functions are not kept),
    // no prebuilt bundles, no metafile the project asked for.
    if (options.plugins !== undefined || options.skipBuild || options.metafile) return;
    const serviceDir = serviceDirOf(this.serverless);
    const esbuild = loadEsbuild();
    const key = cacheKey(plugin, serviceDir, esbuild.version);
    const store = new BundleStore(join(serviceDir, CACHE_DIR), serviceDir);
    if (this.reuse(plugin, store, key, esbuild, serviceDir)) return;
    /** @type {Map<string, { options: Record<string, unknown>, result?: BuildResult }>} entry -> its build */
    const builds = new Map();
    /** @type {EsbuildPlugin} */
    const recorder = {
      name: "modelrest-bundle-cache",
      setup(build) {
        const { plugins: _plugins, ...initial } = build.initialOptions;
        const entry = Array.isArray(initial.entryPoints) && typeof initial.entryPoints[0] === "string" ? initial.entryPoints[0] : undefined;
        if (entry === undefined) return;
        const record = {
          options: mapPaths(initial, (p) => (isAbsolute(p) ? relative(serviceDir, p) : p)),
          result: /** @type {BuildResult | undefined} */ (undefined),
        };
        builds.set(entry, record);
        build.initialOptions.metafile = true;
        build.onEnd((result) => {
          record.result ??= result;
        });
      },
    };
    options.plugins = [recorder];
    const bundle = plugin.bundle;
    plugin.bundle = async () => {
      plugin.bundle = bundle;
      await bundle();
      const entries = [...builds.entries()];
      if (entries.length === 0 || entries.some(([, b]) => b.result?.metafile === undefined || b.result.errors.length > 0)) return;
      try {
        store.save(key, {
          inputs: entries.flatMap(([, b]) => Object.keys(b.result?.metafile?.inputs ?? {})),
          outputs: entries.flatMap(([, b]) => Object.keys(b.result?.metafile?.outputs ?? {})),
          options: Object.fromEntries(entries.map(([entry, b]) => [entry, b.options])),
        });
      } catch (error) {
        // A cache that cannot be written costs the next start its bundling, nothing else.
        console.log(`esbuild: the bundles could not be kept in ${CACHE_DIR}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
  }
}
