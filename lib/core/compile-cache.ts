/**
 * Whether this process compiled its bundle from the V8 compile cache packaging shipped beside it
 * (lib/cli/compile-cache/). Node keys that cache by the bundle's absolute path and bytes, its own
 * version and architecture, V8's flags and the user, and ignores one built for anything else
 * without a word: the function says which it was on its cold-start line and in a metric, so a
 * runtime update that silently dropped the cache shows.
 */
import { readFileSync, statSync } from "node:fs";
import nodeModule from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** Written by packaging beside the cache it generated: what it was built for. */
export interface CompileCacheManifest {
  /** The bundle's absolute path where it runs (/var/task/functions/graphql.mjs). */
  bundle: string;
  /** Its size in bytes: Node refuses an entry whose source differs. */
  bytes: number;
  /** Node's directory for the version, architecture, flags and user it was built with, under the cache root. */
  directory: string;
  node: string;
  arch: string;
}

// Node >= 22.1; the installed @types/node predates it.
const { getCompileCacheDir } = nodeModule as { getCompileCacheDir?: () => string | undefined };

export const COMPILE_CACHE_MANIFEST = "manifest.json";

export interface CompileCacheReport {
  /** hit: compiled from the shipped cache; miss: one was shipped and Node could not use it; none: none shipped. */
  state: "hit" | "miss" | "none";
  /** Why it missed. */
  reason?: string;
}

/**
 * The report for `bundleUrl` (in a bundle, this module's own URL is the bundle's), with the cache
 * root in NODE_COMPILE_CACHE, where Node reads it from at start-up.
 */
export function compileCacheReport(bundleUrl: string, env: NodeJS.ProcessEnv = process.env): CompileCacheReport {
  const root = env.NODE_COMPILE_CACHE;
  if (!root) return { state: "none" };
  let manifest: CompileCacheManifest;
  try {
    manifest = JSON.parse(readFileSync(join(root, COMPILE_CACHE_MANIFEST), "utf8")) as CompileCacheManifest;
  } catch {
    return { state: "miss", reason: `no readable ${COMPILE_CACHE_MANIFEST} in ${root}` };
  }
  const built = `built for Node ${manifest.node} on ${manifest.arch}`;
  // Undefined when Node could not open its directory: on a read-only package, the one for this
  // version, architecture, flags and user is not there.
  const own = getCompileCacheDir?.();
  if (own === undefined || relative(root, own) !== manifest.directory) {
    return { state: "miss", reason: `${built}, run by Node ${process.version} on ${process.arch} (or other V8 flags or user)` };
  }
  const path = bundleUrl.startsWith("file:") ? fileURLToPath(bundleUrl) : bundleUrl;
  if (path !== manifest.bundle) return { state: "miss", reason: `built for ${manifest.bundle}, running from ${path}` };
  try {
    if (statSync(path).size !== manifest.bytes) return { state: "miss", reason: `built for a ${manifest.bytes}-byte bundle, this one differs` };
  } catch {
    return { state: "miss", reason: `cannot read ${path}` };
  }
  return { state: "hit" };
}
