import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeCache } from "../../cli/cache.ts";
import { BundleIndex } from "./bundles.ts";
import { diffVersions, includedCacheFiles } from "./diff.ts";
import type { Version } from "./diff.ts";
import { checkInChild } from "./rebuild.ts";
import { watchSources } from "./watch.ts";

/**
 * serverless.yml's `custom.esbuild.watch.pattern`: serverless-esbuild rebundles (and offline drops
 * its cached handlers) when this file changes, and only then. Only the loop below writes it, once
 * the new version passed the check, so an edit that does not load is never bundled and served.
 */
export const RELOAD_STAMP = ".data/live-reload.stamp";
const BUNDLE_DIR = ".esbuild/.build";
const BUNDLE_TIMEOUT_MS = 120_000;

export interface LiveReloadOptions {
  projectDir: string;
  /** The application's module (exports `app`), absolute. */
  appModule: string;
  tablePrefix: string;
  /** Folders under projectDir whose sources make up the served code. */
  watch: readonly string[];
  /** The version offline serves now. */
  served: Version;
  /** When the running offline started (its bundles are newer). */
  offlineStarted: number;
  /** Sources saved at or after this time (ms) are changes: the served version was read from them then. */
  sourcesRead?: number;
  /** Creates missing tables and indexes; called before the new version is served. */
  ensureTables: (tables: CreateTableCommandInput[]) => Promise<void>;
  /** Starts serverless offline again (it reads serverless.yml and what it includes only at start). */
  restartOffline: () => Promise<boolean>;
  log: (line: string) => void;
}

/** Creates the stamp before offline starts: serverless-esbuild then watches a file that exists. */
export async function prepareReloadStamp(projectDir: string): Promise<void> {
  const file = join(projectDir, RELOAD_STAMP);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${Date.now()}\n`);
}

async function mtime(path: string): Promise<number> {
  return (await stat(path).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
}

/** Asks serverless-esbuild to rebundle; resolves once each of `maps` (the bundles the edit changes) has been rewritten. */
async function rebundle(projectDir: string, maps: readonly string[]): Promise<boolean> {
  const asked = Date.now();
  await writeFile(join(projectDir, RELOAD_STAMP), `${asked}\n`);
  const deadline = asked + BUNDLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const times = await Promise.all(maps.map(mtime));
    if (times.every((t) => t >= asked)) {
      // serverless-esbuild writes every function's bundle, then tells offline to drop its handlers.
      await sleep(500);
      return true;
    }
    await sleep(200);
  }
  return false;
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Watches the sources and serves each version that passes the check; resolves with a stop function. */
export function startLiveReload(options: LiveReloadOptions): Promise<() => void> {
  const { projectDir, log } = options;
  let served = options.served;
  // Every bundle offline serves was written after its last start; older ones belong to functions gone.
  let offlineStarted = options.offlineStarted;
  const bundles = new BundleIndex(join(projectDir, BUNDLE_DIR));
  const apply = async (changed: string[]): Promise<void> => {
    const began = Date.now();
    log(`live reload: ${changed.join(", ")} changed; checking`);
    const result = await checkInChild(projectDir, options.appModule, options.tablePrefix);
    if (!result.ok) {
      log(`live reload: the change does not load; still serving the last good version.\n${result.error.trim()}`);
      return;
    }
    log(`live reload: checked in ${seconds(began)}`);
    const yml = await readFile(join(projectDir, "serverless.yml"), "utf8");
    const change = diffVersions(served, result, includedCacheFiles(yml));
    await writeCache(join(projectDir, "schema-cache"), result.files);
    await options.ensureTables(result.tables);
    served = { files: result.files, tables: result.tables };
    let outcome: string;
    if (change.restart) {
      log("live reload: restarting serverless offline (DynamoDB Local, its data and the ports stay)");
      const restarted = Date.now();
      const ready = await options.restartOffline();
      offlineStarted = restarted;
      outcome = ready ? `serving the new version (${seconds(began)})` : "serverless offline did not come back";
    } else {
      const sources = [...changed, ...change.files.map((f) => join("schema-cache", f))].map((f) => join(projectDir, f));
      const maps = await bundles.affected(sources, offlineStarted);
      if (maps.length === 0) {
        // A comment in a file no bundle reads, whitespace, a file nothing imports: nothing to wait for.
        outcome = "no function changed; watching";
      } else {
        const bundled = await rebundle(projectDir, maps);
        outcome = bundled
          ? `serving the new version (${seconds(began)})`
          : `serverless-esbuild did not rewrite ${maps.length} bundle(s) in ${BUNDLE_TIMEOUT_MS / 1000} s; the next save tries again`;
      }
    }
    // After offline's own output (its route table on a restart), where a user looks last.
    log([`live reload: ${outcome}`, ...change.lines.map((line) => `  ${line}`)].join("\n"));
  };
  const run = async (changed: string[]): Promise<void> => {
    try {
      await apply(changed);
    } catch (error) {
      log(`live reload: ${error instanceof Error ? error.message : String(error)}; still serving the last good version`);
    }
  };
  return watchSources(projectDir, options.watch, run, { since: options.sourcesRead });
}
