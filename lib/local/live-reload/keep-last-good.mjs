// @ts-check
// A rebuild that never leaves a function without a bundle. An esbuild context whose rebuild fails
// deletes the files its previous build wrote (esbuild removes outputs a build no longer produces,
// and a failed build produces none), so a syntax error saved while live reload rebuilt in the
// background took the bundle away: every request then failed with "Cannot find module", and the
// next good save found no source map naming the file it fixed. Here the outputs are hard-linked
// aside before the rebuild and renamed back over the paths when it fails: on disk, a bundle is
// only ever replaced by a build that succeeded. Plain JS (checked by tsc through its JSDoc types)
// because the Serverless CLI loads the plugin that uses it.
import { linkSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The name a kept output has while its bundle rebuilds (a dot-name: no bundle is named so). */
const KEPT_PREFIX = ".last-good-";

/**
 * The files the last build of `bundle` wrote in `buildDir`: its code and source map
 * ("functions/rest" -> functions/rest.mjs, functions/rest.mjs.map).
 * @param {string} buildDir
 * @param {string} bundle
 * @returns {string[]}
 */
export function outputsOf(buildDir, bundle) {
  const dir = join(buildDir, dirname(bundle));
  const prefix = `${basename(bundle)}.`;
  try {
    return readdirSync(dir)
      .filter((name) => name.startsWith(prefix))
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** @param {string} file */
const keptPath = (file) => join(dirname(file), `${KEPT_PREFIX}${basename(file)}`);

/**
 * Runs `rebuild` (an esbuild context's, writing `outputs`); when it fails, puts `outputs` back as
 * they were before it and rethrows. A hard link keeps the old bytes whatever esbuild does to the
 * path (deletes it, or writes a new file); renaming it back is atomic, so a reader sees the old
 * bundle or, after a success, the new one.
 * @template T
 * @param {() => Promise<T>} rebuild
 * @param {readonly string[]} outputs
 * @returns {Promise<T>}
 */
export async function rebuildKeepingLastGood(rebuild, outputs) {
  /** @type {[string, string][]} */
  const kept = [];
  for (const file of outputs) {
    const aside = keptPath(file);
    rmSync(aside, { force: true });
    try {
      linkSync(file, aside);
      kept.push([file, aside]);
    } catch {
      // Not there (never built): nothing to keep.
    }
  }
  try {
    return await rebuild();
  } catch (error) {
    for (const [file, aside] of kept) renameSync(aside, file);
    kept.length = 0;
    throw error;
  } finally {
    for (const [, aside] of kept) rmSync(aside, { force: true });
  }
}
