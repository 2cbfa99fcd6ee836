// @ts-check
// The bundles `serverless offline` built from a given set of sources, kept so that a later start
// from the same sources copies them instead of bundling again (lib/local/bundle-cache.mjs says
// when). A state is valid only while every file esbuild read to build it has the bytes it had
// then, and every folder of the project it read from lists the same names (a new file beside an
// import can change what the import resolves to). Plain JS (checked by tsc through its JSDoc
// types) because the Serverless CLI loads plugins itself.
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

/** States kept in all: each is every function's bundle and source map (about 40 MB for the sample). */
export const KEEP_STATES = 6;
const MANIFEST = "manifest.json";
const FILES = "files";

/**
 * @typedef {object} Manifest
 * @property {Record<string, string>} inputs project-relative path -> sha256 of its bytes
 * @property {Record<string, string>} dirs project folder of an input -> sha256 of its sorted names
 * @property {string[]} outputs project-relative paths of the files the build wrote
 * @property {Record<string, Record<string, unknown>>} options entry -> the esbuild options it was built with
 */
/** @typedef {{ dir: string, manifest: Manifest }} State */

/** @param {string | Buffer} data */
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

export class BundleStore {
  /**
   * @param {string} root the folder the states are kept in
   * @param {string} serviceDir the project the paths are relative to
   */
  constructor(root, serviceDir) {
    this.root = root;
    this.serviceDir = serviceDir;
    /** @type {Map<string, string | undefined>} a start reads each file once */
    this.hashes = new Map();
  }

  /** @param {string} path project-relative; undefined when it is not a readable file */
  hashOf(path) {
    if (!this.hashes.has(path)) {
      let hash;
      try {
        hash = sha256(readFileSync(resolve(this.serviceDir, path)));
      } catch {
        hash = undefined;
      }
      this.hashes.set(path, hash);
    }
    return this.hashes.get(path);
  }

  /**
   * The names an import could resolve to in `dir`: not the dot-names, which an import does not
   * name by itself and which the project root gains as it runs (.data/, .esbuild/, .serverless/).
   * @param {string} dir project-relative
   */
  listingOf(dir) {
    try {
      const names = readdirSync(resolve(this.serviceDir, dir)).filter((name) => !name.startsWith("."));
      return sha256(names.sort().join("\n"));
    } catch {
      return undefined;
    }
  }

  /**
   * The state of `key` the current sources match, newest first; marked as used.
   * @param {string} key
   * @returns {State | undefined}
   */
  find(key) {
    const keyDir = join(this.root, key);
    if (!existsSync(keyDir)) return undefined;
    const states = readdirSync(keyDir)
      .filter((name) => !name.startsWith("."))
      .map((name) => join(keyDir, name))
      .filter((dir) => existsSync(join(dir, MANIFEST)))
      .sort((a, b) => statSync(join(b, MANIFEST)).mtimeMs - statSync(join(a, MANIFEST)).mtimeMs);
    for (const dir of states) {
      /** @type {Manifest} */
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8"));
      } catch {
        continue;
      }
      const matches =
        Object.entries(manifest.inputs).every(([path, hash]) => this.hashOf(path) === hash) &&
        Object.entries(manifest.dirs).every(([path, hash]) => this.listingOf(path) === hash) &&
        manifest.outputs.every((path) => existsSync(join(dir, FILES, path)));
      if (!matches) continue;
      const now = new Date();
      utimesSync(join(dir, MANIFEST), now, now);
      return { dir, manifest };
    }
    return undefined;
  }

  /**
   * Copies a state's outputs where the build would have written them. Copies, not links: a later
   * rebuild (live reload) writes over them in place.
   * @param {State} state
   */
  restore(state) {
    for (const path of state.manifest.outputs) {
      const target = resolve(this.serviceDir, path);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(state.dir, FILES, path), target);
    }
  }

  /**
   * Keeps what a build read and wrote under `key`, then drops the least recently used states
   * beyond KEEP_STATES. Written aside and renamed into place: a start reading it meanwhile, or
   * another saving the same state, sees either nothing or all of it.
   * @param {string} key
   * @param {{ inputs: string[], outputs: string[], options: Record<string, Record<string, unknown>> }} build
   */
  save(key, build) {
    /** @type {Record<string, string>} */
    const inputs = {};
    /** @type {Record<string, string>} */
    const dirs = {};
    for (const path of [...new Set(build.inputs)].sort()) {
      const hash = this.hashOf(path);
      if (hash === undefined) continue; // not a file (esbuild's own namespaces)
      inputs[path] = hash;
      const dir = dirname(path);
      if (!`${sep}${dir}${sep}`.includes(`${sep}node_modules${sep}`) && !(dir in dirs)) {
        const listing = this.listingOf(dir);
        if (listing !== undefined) dirs[dir] = listing;
      }
    }
    /** @type {Manifest} */
    const manifest = { inputs, dirs, outputs: [...new Set(build.outputs)].sort(), options: build.options };
    const keyDir = join(this.root, key);
    const dir = join(keyDir, sha256(JSON.stringify(manifest)).slice(0, 32));
    if (existsSync(join(dir, MANIFEST))) return;
    const temporary = join(keyDir, `.${randomBytes(8).toString("hex")}`);
    try {
      for (const path of manifest.outputs) {
        const target = join(temporary, FILES, path);
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(resolve(this.serviceDir, path), target);
      }
      writeFileSync(join(temporary, MANIFEST), JSON.stringify(manifest));
      renameSync(temporary, dir);
    } catch (error) {
      rmSync(temporary, { recursive: true, force: true });
      // Another start saved the same state first.
      if (existsSync(join(dir, MANIFEST))) return;
      throw error;
    }
    this.evict();
  }

  /** Drops all but the KEEP_STATES most recently used states, and the keys left empty. */
  evict() {
    /** @type {{ dir: string, used: number }[]} */
    const states = [];
    for (const key of readdirSync(this.root)) {
      const keyDir = join(this.root, key);
      for (const name of readdirSync(keyDir)) {
        const manifest = join(keyDir, name, MANIFEST);
        if (!name.startsWith(".") && existsSync(manifest)) states.push({ dir: join(keyDir, name), used: statSync(manifest).mtimeMs });
      }
    }
    states.sort((a, b) => b.used - a.used);
    for (const { dir } of states.slice(KEEP_STATES)) rmSync(dir, { recursive: true, force: true });
    for (const key of readdirSync(this.root)) {
      const keyDir = join(this.root, key);
      if (readdirSync(keyDir).length === 0) rmSync(keyDir, { recursive: true, force: true });
    }
  }
}
