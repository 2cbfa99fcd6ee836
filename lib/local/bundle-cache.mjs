// @ts-check
// Offline only: a start whose sources match an earlier start's copies that start's bundles instead
// of bundling every function again. esbuild bundling every function is about 10 CPU-seconds of a
// start (half of it), and the same sources are started again and again: by a developer who stops
// and starts, and by the test suite, whose service files each start their own `npm start`.
//
// Listed before serverless-esbuild, so each of its hooks runs before serverless-esbuild's:
// - `initialize`: serverless-esbuild's public `plugins` option carries a recorder of each bundle's
//   options and of the files esbuild read for it (esbuild-builds.mjs).
// - `before:offline:start:init`, on a hit: the kept outputs are copied into .esbuild/.build/, and
//   serverless-esbuild is handed a context per bundle whose first build is that copy. Each context
//   builds for real from the kept options the first time live reload rebuilds it, so live reload
//   works as after a miss. On a miss, serverless-esbuild bundles as ever, recorded.
// - `offline:start:init`, after serverless-esbuild bundled: a miss's outputs, inputs and options
//   are kept (lib/local/bundle-store.mjs).
// The key holds everything else a bundle depends on: serverless-esbuild's options as configured,
// the functions' handlers and runtimes, both packages' versions, the lockfiles and tsconfig.json.
// A deploy never comes here.
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { BundleStore } from "./bundle-store.mjs";
import { esbuildBuilds, loadEsbuild } from "./esbuild-builds.mjs";
import { serverlessEsbuildOf, serviceDirOf } from "./serverless-esbuild-instance.mjs";

/** Under the project's node_modules: a project copy that links node_modules shares it. */
export const CACHE_DIR = "node_modules/.cache/modelrest-bundles";
/** Options whose value is a path in the project: kept relative, so a copy of the project can reuse them. */
const PATH_OPTIONS = ["outdir", "outfile", "absWorkingDir"];

/**
 * @typedef {import("./esbuild-builds.mjs").EsbuildContext} EsbuildContext
 * @typedef {import("./esbuild-builds.mjs").Esbuild} Esbuild
 * @typedef {import("./esbuild-builds.mjs").EsbuildBuilds} EsbuildBuilds
 * @typedef {import("./serverless-esbuild-instance.mjs").ServerlessEsbuild} ServerlessEsbuild
 * @typedef {{ handler?: unknown, runtime?: unknown, skipEsbuild?: unknown }} FunctionDefinition
 * @typedef {object} ServiceConfig what the key reads of the service, as configured
 * @property {{ name?: string, runtime?: string }} [provider]
 * @property {{ esbuild?: Record<string, unknown> }} [custom]
 * @property {Record<string, FunctionDefinition>} [functions]
 * @typedef {import("./serverless-esbuild-instance.mjs").ServerlessInstance & { service: ServiceConfig }} Serverless
 */

function serverlessEsbuildVersion() {
  const main = createRequire(import.meta.url).resolve("serverless-esbuild");
  return JSON.parse(readFileSync(join(dirname(main), "..", "package.json"), "utf8")).version;
}

/** @param {string} path */
function fileHash(path) {
  return existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : null;
}

/**
 * Everything a bundle depends on besides the files esbuild reads, from the service as configured:
 * serverless-esbuild derives its build options (`custom.esbuild` over its defaults, the target
 * from the runtime) and its entries (from the handlers) from these alone.
 * @param {ServiceConfig} service
 * @param {string} serviceDir
 * @param {string} esbuildVersion
 */
export function cacheKey(service, serviceDir, esbuildVersion) {
  const { plugins: _plugins, ...esbuildOptions } = service.custom?.esbuild ?? {};
  const functions = Object.values(service.functions ?? {}).map((f) => JSON.stringify([f.handler, f.runtime ?? null, f.skipEsbuild ?? null]));
  const described = JSON.stringify({
    format: 2,
    esbuild: esbuildVersion,
    serverlessEsbuild: serverlessEsbuildVersion(),
    esbuildOptions,
    provider: [service.provider?.name ?? null, service.provider?.runtime ?? null],
    functions: [...new Set(functions)].sort(),
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
  /**
   * @param {Serverless} serverless
   * @param {Record<string, unknown>} [_options]
   * @param {unknown} [_logging]
   * @param {EsbuildBuilds} [builds] the recorder serverless-esbuild's builds report to
   */
  constructor(serverless, _options, _logging, builds = esbuildBuilds) {
    this.serverless = serverless;
    this.builds = builds;
    this.done = false;
    /** @type {{ key: string, store: BundleStore, serviceDir: string } | undefined} a miss: kept once serverless-esbuild bundled */
    this.miss = undefined;
    const prepare = () => this.prepare();
    const keep = () => this.keep();
    this.hooks = {
      initialize: () => {
        this.builds.record(this.serverless);
      },
      "before:offline:start:init": prepare,
      "before:offline:start": prepare,
      "offline:start:init": keep,
      "offline:start": keep,
    };
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
    // Only what it can replay: serverless-esbuild's builds recorded (no esbuild plugins of the
    // project's own, no prebuilt bundles, no metafile the project asked for: esbuild-builds.mjs).
    if (!this.builds.recording) return;
    // Throws, naming it, when what it relies on of serverless-esbuild is not there: a cache that
    // turned itself off without a word would only make every start slower.
    const plugin = serverlessEsbuildOf(this.serverless);
    const serviceDir = serviceDirOf(this.serverless);
    const esbuild = loadEsbuild();
    const key = cacheKey(this.serverless.service, serviceDir, esbuild.version);
    const store = new BundleStore(join(serviceDir, CACHE_DIR), serviceDir);
    if (this.reuse(plugin, store, key, esbuild, serviceDir)) return;
    this.miss = { key, store, serviceDir };
  }

  /** After serverless-esbuild bundled, on a miss: keeps what every build read, wrote and was built with. */
  keep() {
    const miss = this.miss;
    this.miss = undefined;
    if (miss === undefined) return;
    const entries = [...this.builds.builds.entries()];
    if (entries.length === 0 || entries.some(([, b]) => b.result?.metafile === undefined || b.result.errors.length > 0)) return;
    try {
      miss.store.save(miss.key, {
        inputs: entries.flatMap(([, b]) => Object.keys(b.result?.metafile?.inputs ?? {})),
        outputs: entries.flatMap(([, b]) => Object.keys(b.result?.metafile?.outputs ?? {})),
        options: Object.fromEntries(entries.map(([entry, b]) => [entry, mapPaths(b.options, (p) => (isAbsolute(p) ? relative(miss.serviceDir, p) : p))])),
      });
    } catch (error) {
      // A cache that cannot be written costs the next start its bundling, nothing else.
      console.log(`esbuild: the bundles could not be kept in ${CACHE_DIR}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
