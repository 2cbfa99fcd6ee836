// @ts-check
// Offline only: rebuilds the bundles `npm start`'s live reload names, and no others, with
// serverless-esbuild's own esbuild contexts (the options and output it bundled with at start, so
// the bundles stay those a deploy ships), then has offline drop its cached handlers. Rebuilding
// every function for an edit most of them do not read was most of a reload's time.
//
// The request and its answer are files under .data/live-reload/ (lib/local/live-reload/loop.ts
// writes one, this answers it): the two processes share nothing else.
import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";

export const REQUEST_FILE = "request.json";
export const DONE_FILE = "done.json";
export const RELOAD_DIR = ".data/live-reload";

/**
 * @typedef {{ rebuild: () => Promise<unknown> }} EsbuildContext
 * @typedef {{ buildCache?: Record<string, { context?: EsbuildContext }>, bundle: () => Promise<void> }} EsbuildPlugin
 * @typedef {{ id: string, bundles: string[] }} Request
 */

/** @param {string} path @param {unknown} value */
function writeAtomically(path, value) {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify(value));
  renameSync(temporary, path);
}

export default class LiveReloadBundles {
  /**
   * @param {{ serviceDir?: string, config?: { servicePath?: string }, pluginManager: { plugins: unknown[], spawn: (event: string) => Promise<void> } }} serverless
   */
  constructor(serverless) {
    this.serverless = serverless;
    /** @type {string | undefined} */
    this.lastId = undefined;
    this.busy = Promise.resolve();
    // After serverless-esbuild's own hook on this event (it is listed before this plugin): its
    // contexts exist once the first bundle is written.
    this.hooks = { "before:offline:start:init": () => this.watchRequests() };
  }

  /** serverless-esbuild's instance, found by what it holds rather than by its class name. */
  esbuild() {
    return /** @type {EsbuildPlugin | undefined} */ (
      this.serverless.pluginManager.plugins.find(
        (p) => typeof p === "object" && p !== null && "buildCache" in p && "bundle" in p && typeof p.bundle === "function",
      )
    );
  }

  watchRequests() {
    const dir = join(this.serverless.serviceDir ?? this.serverless.config?.servicePath ?? process.cwd(), RELOAD_DIR);
    mkdirSync(dir, { recursive: true });
    const watcher = watch(dir, (_event, name) => {
      if (name === REQUEST_FILE) this.busy = this.busy.then(() => this.answer(dir));
    });
    watcher.unref();
  }

  /** @param {string} dir */
  async answer(dir) {
    const path = join(dir, REQUEST_FILE);
    if (!existsSync(path)) return;
    /** @type {Request} */
    let request;
    try {
      request = JSON.parse(readFileSync(path, "utf8"));
    } catch {
      return; // Half-written is impossible (renamed into place); unreadable means replaced: the next event reads it.
    }
    if (request.id === this.lastId) return;
    this.lastId = request.id;
    const began = Date.now();
    try {
      const plugin = this.esbuild();
      if (plugin === undefined) throw new Error("serverless-esbuild is not loaded");
      const cache = plugin.buildCache ?? {};
      const contexts = request.bundles.map((bundle) => {
        const entry = Object.keys(cache).find((e) => e.slice(0, e.lastIndexOf(".")) === bundle);
        return entry === undefined ? undefined : cache[entry]?.context;
      });
      if (contexts.every((c) => c !== undefined)) {
        await Promise.all(contexts.map((c) => c?.rebuild()));
      } else {
        // A bundle it does not know (it was started without contexts): all of them, as its watch would.
        await plugin.bundle();
      }
      await this.serverless.pluginManager.spawn("offline:functionsUpdated");
      writeAtomically(join(dir, DONE_FILE), { id: request.id, ok: true, ms: Date.now() - began });
    } catch (error) {
      writeAtomically(join(dir, DONE_FILE), {
        id: request.id,
        ok: false,
        ms: Date.now() - began,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
