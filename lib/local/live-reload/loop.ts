import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeCache } from "../../cli/cache.ts";
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

async function newestBundle(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let newest = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".mjs")) continue;
    const { mtimeMs } = await stat(join(entry.parentPath, entry.name)).catch(() => ({ mtimeMs: 0 }));
    newest = Math.max(newest, mtimeMs);
  }
  return newest;
}

/** Asks serverless-esbuild to rebundle; resolves once a bundle newer than the request is written. */
async function rebundle(projectDir: string): Promise<boolean> {
  const asked = Date.now();
  await writeFile(join(projectDir, RELOAD_STAMP), `${asked}\n`);
  const deadline = asked + BUNDLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if ((await newestBundle(join(projectDir, BUNDLE_DIR))) >= asked) {
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

/** Watches the sources and serves each version that passes the check; returns a stop function. */
export function startLiveReload(options: LiveReloadOptions): () => void {
  const { projectDir, log } = options;
  let served = options.served;
  const apply = async (changed: string[]): Promise<void> => {
    const began = Date.now();
    log(`live reload: ${changed.join(", ")} changed; checking`);
    const result = await checkInChild(projectDir, options.appModule, options.tablePrefix);
    if (!result.ok) {
      log(`live reload: the change does not load; still serving the last good version.\n${result.error.trim()}`);
      return;
    }
    const yml = await readFile(join(projectDir, "serverless.yml"), "utf8");
    const change = diffVersions(served, result, includedCacheFiles(yml));
    await writeCache(join(projectDir, "schema-cache"), result.files);
    await options.ensureTables(result.tables);
    for (const line of change.lines) log(`  ${line}`);
    served = { files: result.files, tables: result.tables };
    if (change.restart) {
      log("live reload: restarting serverless offline (DynamoDB Local, its data and the ports stay)");
      const ready = await options.restartOffline();
      log(ready ? `live reload: serving the new version (${seconds(began)})` : "live reload: serverless offline did not come back");
      return;
    }
    const bundled = await rebundle(projectDir);
    log(bundled ? `live reload: serving the new version (${seconds(began)})` : "live reload: no new bundle appeared; see serverless-esbuild's output above");
  };
  const run = async (changed: string[]): Promise<void> => {
    try {
      await apply(changed);
    } catch (error) {
      log(`live reload: ${error instanceof Error ? error.message : String(error)}; still serving the last good version`);
    }
  };
  return watchSources(projectDir, options.watch, run);
}
