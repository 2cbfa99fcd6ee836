// @ts-check
// Offline only: what each of serverless-esbuild's builds was, seen through public paths alone.
// serverless-esbuild passes the esbuild plugins its `plugins` option names to every build it
// starts; under `serverless offline`, before serverless-esbuild reads its options (serverless's
// `initialize`), that option is set to one esbuild plugin that records each entry's build options
// (those a deploy bundles with: serverless-esbuild's defaults and translation applied) and asks
// esbuild for the files the build read. The bundle cache keeps them (bundle-cache.mjs); live reload
// builds from them an entry serverless-esbuild keeps no context of (live-reload/offline-bundles.mjs).
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { createRequire } from "node:module";

/**
 * @typedef {{ errors: unknown[], warnings: unknown[], metafile?: { inputs: Record<string, unknown>, outputs: Record<string, unknown> } }} BuildResult
 * @typedef {{ rebuild: () => Promise<BuildResult>, dispose: () => Promise<void>, cancel: () => Promise<void> }} EsbuildContext
 * @typedef {{ initialOptions: Record<string, unknown>, onEnd: (callback: (result: BuildResult) => void) => void }} PluginBuild
 * @typedef {{ name: string, setup: (build: PluginBuild) => void }} EsbuildPlugin
 * @typedef {{ context: (options: import("esbuild").BuildOptions) => Promise<EsbuildContext>, version: string }} Esbuild
 * @typedef {{ options: Record<string, unknown>, result?: BuildResult }} RecordedBuild
 * @typedef {{ custom?: { esbuild?: Record<string, unknown> } }} Service
 * @typedef {{ service: Service, processedInput?: { commands?: string[] } }} Serverless
 */

export const RECORDER = "modelrest-build-recorder";

/** The esbuild serverless-esbuild loads, so that a build of lib/local's is one of the same esbuild. */
export function loadEsbuild() {
  return /** @type {Esbuild} */ (createRequire(createRequire(import.meta.url).resolve("serverless-esbuild"))("esbuild"));
}

export class EsbuildBuilds {
  constructor() {
    /** @type {Map<string, RecordedBuild>} entry ("functions/rest.ts", as serverless-esbuild names it) -> its first build */
    this.builds = new Map();
    /** Whether serverless-esbuild's options carry the recorder (see `record`). */
    this.recording = false;
  }

  /**
   * The esbuild plugin: each build's options but the plugins, and its first result, by its entry.
   * @returns {EsbuildPlugin}
   */
  plugin() {
    return {
      name: RECORDER,
      setup: (build) => {
        const { plugins: _plugins, ...initial } = build.initialOptions;
        const entry = Array.isArray(initial.entryPoints) && typeof initial.entryPoints[0] === "string" ? initial.entryPoints[0] : undefined;
        if (entry === undefined) return;
        /** @type {RecordedBuild} */
        const record = { options: initial };
        this.builds.set(entry, record);
        // What esbuild read and wrote: the bundle cache's inputs and outputs.
        build.initialOptions.metafile = true;
        build.onEnd((result) => {
          record.result ??= result;
        });
      },
    };
  }

  /**
   * Under `serverless offline`, before serverless-esbuild's `initialize` (which reads its options):
   * its `plugins` option becomes the recorder, unless the project set options the recorder cannot
   * stand in for (esbuild plugins of its own, an options file, prebuilt bundles, a metafile it asked
   * for). Answers whether it records.
   * @param {Serverless} serverless
   */
  record(serverless) {
    if (serverless.processedInput?.commands?.[0] !== "offline") return false;
    const custom = (serverless.service.custom ??= {});
    const options = (custom.esbuild ??= {});
    if (options.plugins !== undefined || options.config !== undefined || options.skipBuild || options.metafile) return false;
    options.plugins = [this.plugin()];
    this.recording = true;
    return true;
  }

  /**
   * A context building `entry` as serverless-esbuild built it, or undefined when no build of it was
   * recorded.
   * @param {string} entry
   * @returns {Promise<EsbuildContext | undefined>}
   */
  async contextFor(entry) {
    const build = this.builds.get(entry);
    return build === undefined ? undefined : loadEsbuild().context(/** @type {import("esbuild").BuildOptions} */ (build.options));
  }
}

/** This process's builds: one `serverless offline` per process. */
export const esbuildBuilds = new EsbuildBuilds();
