// @ts-check
// Offline only: marks the bundles `npm start`'s live reload names as stale, and no others, and
// answers at once. Stale bundles are rebuilt one at a time in the background with serverless-
// esbuild's own esbuild contexts (the options and output it bundled with at start, so the bundles
// stay those a deploy ships); a request for a stale function has its bundle rebuilt at once, ahead
// of the queue, and waits for it alone; a worker that loaded an older build is replaced. A model
// edit changes every function, and rebuilding all of them before answering was most of a reload's
// time. While npm start checks a newer save, and after a save failed its check until one passes,
// nothing is rebuilt: a rebuild reads the sources on disk, and only a version that passed its
// check may be bundled. A rebuild that fails anyway (a save landed while it read the sources)
// leaves the last good bundle in place (keep-last-good.mjs) and is done again with the next
// checked version.
//
// The request and its answer are files under .data/live-reload/ (lib/local/live-reload/loop.ts
// writes one, this answers it): the two processes share nothing else.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { esbuildBuilds } from "../esbuild-builds.mjs";
import { gateOfflineHandlers } from "../offline-patches.mjs";
import { serverlessEsbuildOf, serviceDirOf } from "../serverless-esbuild-instance.mjs";
import { outputsOf, rebuildKeepingLastGood } from "./keep-last-good.mjs";

export const REQUEST_FILE = "request.json";
export const DONE_FILE = "done.json";
/** `{ "held": true }` while npm start checks a save: no rebuild may read the sources meanwhile. */
export const HOLD_FILE = "hold.json";
export const RELOAD_DIR = ".data/live-reload";
/** Every live-reload line, from npm start's loop and from this plugin (the terminal scrolls; tests read it). */
export const RELOAD_LOG = ".data/live-reload.log";
/** Where serverless-esbuild writes the bundles offline serves; a handler there is named from it. */
const BUILD_DIR = ".esbuild/.build/";

/**
 * @typedef {{ rebuild: () => Promise<unknown> }} EsbuildContext
 * @typedef {{ buildCache?: Record<string, { context?: unknown }> }} EsbuildPlugin
 * @typedef {{ id: string, bundles: string[] }} Request
 * @typedef {{ functions?: Record<string, { name?: string, handler?: string }> }} Service
 */

/** "functions/graphql.handler" or ".esbuild/.build/functions/graphql.handler" -> "functions/graphql". */
function bundleOfHandler(/** @type {string} */ handler) {
  const module = handler.slice(0, handler.lastIndexOf("."));
  return module.startsWith(BUILD_DIR) ? module.slice(BUILD_DIR.length) : module;
}

/** @param {string} path @param {unknown} value */
function writeAtomically(path, value) {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify(value));
  renameSync(temporary, path);
}

export default class LiveReloadBundles {
  /**
   * @param {{ serviceDir?: string, config?: { servicePath?: string }, service?: Service, pluginManager: { plugins: unknown[], spawn: (event: string) => Promise<void> } }} serverless
   */
  constructor(serverless) {
    this.serverless = serverless;
    /** @type {string | undefined} */
    this.lastId = undefined;
    this.busy = Promise.resolve();
    /** @type {Map<string, EsbuildContext>} bundle ("functions/graphql") -> its context, until rebuilt */
    this.stale = new Map();
    /** @type {Map<string, Promise<void>>} bundle -> its rebuild under way */
    this.building = new Map();
    /** @type {Map<string, number>} bundle -> rebuilds finished: a worker that loaded fewer is replaced */
    this.built = new Map();
    /**
     * Bundles to rebuild with the next checked version: their last rebuild failed (they serve an
     * older build) or read sources a newer save was changing. Marked stale with the next request,
     * whatever that request names, so the next good save serves them whatever happened between.
     * @type {Map<string, EsbuildContext>}
     */
    this.pending = new Map();
    /** @type {Map<string, EsbuildContext>} entry -> a context made from its recorded build (none of serverless-esbuild's) */
    this.made = new Map();
    /** A save is being checked, or the last one failed its check: the sources may not load, so none is bundled. */
    this.held = false;
    /** How many times a hold began: a rebuild that saw it change read sources being saved. */
    this.holds = 0;
    // After serverless-esbuild's own hook on this event (it is listed before this plugin): its
    // contexts exist once the first bundle is written.
    this.hooks = {
      "before:offline:start:init": async () => {
        // What it rebuilds with, checked now: a start stops naming what moved rather than live
        // reload failing at the first save.
        this.esbuild();
        this.watchRequests();
        await gateOfflineHandlers((functionName) => this.freshen(functionName));
      },
    };
  }

  serviceDir() {
    return serviceDirOf(this.serverless);
  }

  /** @param {string} line */
  report(line) {
    console.log(line);
    try {
      appendFileSync(join(this.serviceDir(), RELOAD_LOG), `${line}\n`);
    } catch {
      // The terminal has it.
    }
  }

  /** @param {string} functionName the deployed name offline runs ("<project>-local-graphql") */
  bundleOf(functionName) {
    for (const definition of Object.values(this.serverless.service?.functions ?? {})) {
      if (definition.name === functionName && typeof definition.handler === "string") return bundleOfHandler(definition.handler);
    }
    return undefined;
  }

  /**
   * Rebuilds `bundle` if stale and no rebuild of it runs; resolves when its rebuild ends.
   * @param {string} bundle
   * @param {string} why
   * @returns {Promise<void>}
   */
  start(bundle, why) {
    const running = this.building.get(bundle);
    if (running !== undefined) return running;
    const context = this.stale.get(bundle);
    if (context === undefined) return Promise.resolve();
    this.stale.delete(bundle);
    const began = Date.now();
    const holds = this.holds;
    const rebuild = rebuildKeepingLastGood(() => context.rebuild(), outputsOf(join(this.serviceDir(), BUILD_DIR), bundle))
      .then(
        () => {
          // A save came while it read the sources: the next checked version rebuilds it again.
          if (this.holds !== holds || this.held) this.pending.set(bundle, context);
          this.built.set(bundle, (this.built.get(bundle) ?? 0) + 1);
          this.report(`live reload: ${bundle} rebuilt in ${((Date.now() - began) / 1000).toFixed(1)} s (${why})`);
        },
        (/** @type {unknown} */ error) => {
          this.pending.set(bundle, context);
          this.report(
            `live reload: esbuild could not rebuild ${bundle}; it serves its last good build until the next save that loads.\n${error instanceof Error ? error.message : String(error)}`,
          );
        },
      )
      .finally(() => {
        this.building.delete(bundle);
        this.pump();
      });
    this.building.set(bundle, rebuild);
    return rebuild;
  }

  /** The background queue: one rebuild at a time, none while a save is checked. */
  pump() {
    if (this.held || this.building.size > 0) return;
    const next = this.stale.keys().next();
    if (!next.done) void this.start(next.value, "in the background");
  }

  /**
   * Before offline runs a function: rebuilds its bundle at once if stale (unless a save is being
   * checked: it then serves its last build), waits for a rebuild of it under way, and answers how
   * many rebuilds of it finished.
   * @param {string} functionName
   * @returns {Promise<number>}
   */
  async freshen(functionName) {
    const bundle = this.bundleOf(functionName);
    if (bundle === undefined) return 0;
    for (;;) {
      const running = this.building.get(bundle);
      if (running !== undefined) await running;
      else if (!this.held && this.stale.has(bundle)) await this.start(bundle, "for a request");
      else return this.built.get(bundle) ?? 0;
    }
  }

  esbuild() {
    return /** @type {EsbuildPlugin} */ (serverlessEsbuildOf(this.serverless));
  }

  /**
   * The esbuild context of each bundle: serverless-esbuild's own (warm: it bundled the entry at
   * start), else one made once from the options serverless-esbuild's build of it was recorded with
   * (esbuild-builds.mjs; serverless-esbuild kept no context, with `skipRebuild`). Throws for a bundle
   * neither knows: npm start then serves its last good version.
   * @param {string[]} bundles
   * @returns {Promise<EsbuildContext[]>}
   */
  async contextsOf(bundles) {
    const cache = this.esbuild().buildCache ?? {};
    const entryOf = (/** @type {string} */ bundle) =>
      [...Object.keys(cache), ...esbuildBuilds.builds.keys()].find((e) => e.slice(0, e.lastIndexOf(".")) === bundle);
    /** @type {EsbuildContext[]} */
    const contexts = [];
    for (const bundle of bundles) {
      const entry = entryOf(bundle);
      const own = entry === undefined ? undefined : /** @type {EsbuildContext | undefined} */ (cache[entry]?.context);
      let context = own ?? (entry === undefined ? undefined : this.made.get(entry));
      if (context === undefined && entry !== undefined) {
        context = await esbuildBuilds.contextFor(entry);
        if (context !== undefined) this.made.set(entry, context);
      }
      if (context === undefined) throw new Error(`no esbuild build of ${bundle} is known to offline: restart npm start to bundle it`);
      contexts.push(context);
    }
    return contexts;
  }

  watchRequests() {
    const dir = join(this.serviceDir(), RELOAD_DIR);
    mkdirSync(dir, { recursive: true });
    const watcher = watch(dir, (_event, name) => {
      if (name === REQUEST_FILE) this.busy = this.busy.then(() => this.answer(dir));
      if (name === HOLD_FILE) this.readHold(dir);
    });
    watcher.unref();
  }

  /** @param {string} dir */
  readHold(dir) {
    try {
      const held = JSON.parse(readFileSync(join(dir, HOLD_FILE), "utf8")).held === true;
      if (held && !this.held) this.holds += 1;
      this.held = held;
    } catch {
      return; // Renamed into place: unreadable means gone or replaced, and the next event reads it.
    }
    this.pump();
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
      const contexts = await this.contextsOf(request.bundles);
      // Asked after the check passed: the sources on disk are the checked version.
      this.held = false;
      // What this version marks: the bundles it names, and those an earlier rebuild left behind.
      const marked = new Set(request.bundles);
      for (const [bundle, context] of this.pending) {
        this.stale.set(bundle, context);
        marked.add(bundle);
      }
      this.pending.clear();
      request.bundles.forEach((bundle, i) => this.stale.set(bundle, /** @type {EsbuildContext} */ (contexts[i])));
      const deferred = marked.size;
      this.pump();
      writeAtomically(join(dir, DONE_FILE), { id: request.id, ok: true, ms: Date.now() - began, deferred });
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
