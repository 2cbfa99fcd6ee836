import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { appendFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeCache } from "../../cli/cache.ts";
import { BundleIndex } from "./bundles.ts";
import { diffVersions, includedCacheFiles } from "./diff.ts";
import type { Version } from "./diff.ts";
import { DONE_FILE, HOLD_FILE, RELOAD_DIR, RELOAD_LOG, REQUEST_FILE } from "./offline-bundles.mjs";
import { Checker } from "./rebuild.ts";
import { watchSources } from "./watch.ts";

/**
 * Where `npm start` asks the running offline to rebuild bundles (lib/local/live-reload/
 * offline-bundles.mjs, a plugin serverless.yml loads) and reads its answer. serverless-esbuild
 * watches nothing itself: only an edit that passed the check is bundled and served.
 */
export const LIVE_RELOAD_DIR = RELOAD_DIR;
/** Every live-reload line npm start prints, also kept here (the terminal scrolls; tests read it). */
export const LIVE_RELOAD_LOG = RELOAD_LOG;
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

/** Clears the last run's requests before offline starts: its plugin must not answer a stale one. */
export async function prepareReloadStamp(projectDir: string): Promise<void> {
  const dir = join(projectDir, LIVE_RELOAD_DIR);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await rm(join(projectDir, LIVE_RELOAD_LOG), { force: true });
}

interface Done {
  id: string;
  ok: boolean;
  ms: number;
  /** Bundles marked stale, each rebuilt when a request first runs it (0: rebuilt before answering). */
  deferred?: number;
  error?: string;
}

let requests = 0;

/**
 * Asks offline's plugin to mark the bundles whose source maps are `maps` stale and to drop its
 * cached handlers; resolves with its answer once it has (the next request of each function rebuilds
 * its bundle, then runs the new code), undefined if none came in time.
 */
async function rebundle(projectDir: string, maps: readonly string[]): Promise<Done | undefined> {
  const dir = join(projectDir, LIVE_RELOAD_DIR);
  const id = `${process.pid}-${Date.now()}-${++requests}`;
  const bundles = maps.map((map) => relative(join(projectDir, BUNDLE_DIR), map).replace(/\.mjs\.map$/, ""));
  // Renamed into place: the plugin never reads half a request.
  await writeFile(join(dir, `${REQUEST_FILE}.tmp`), JSON.stringify({ id, bundles }));
  await rename(join(dir, `${REQUEST_FILE}.tmp`), join(dir, REQUEST_FILE));
  const deadline = Date.now() + BUNDLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const done = await readFile(join(dir, DONE_FILE), "utf8").then(
      (text) => JSON.parse(text) as Done,
      () => undefined,
    );
    if (done?.id === id) return done;
    await sleep(50);
  }
  return undefined;
}

/**
 * Tells offline's plugin that a save is being checked (no bundle may be rebuilt from the sources
 * meanwhile) or that the check is over. Best effort: offline may be restarting.
 */
async function hold(projectDir: string, held: boolean): Promise<void> {
  const dir = join(projectDir, LIVE_RELOAD_DIR);
  try {
    await writeFile(join(dir, `${HOLD_FILE}.tmp`), JSON.stringify({ held }));
    await rename(join(dir, `${HOLD_FILE}.tmp`), join(dir, HOLD_FILE));
  } catch {
    // No folder, no plugin to tell.
  }
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Watches the sources and serves each version that passes the check; resolves with a stop function. */
export async function startLiveReload(options: LiveReloadOptions): Promise<() => void> {
  const { projectDir } = options;
  const logFile = join(projectDir, LIVE_RELOAD_LOG);
  const log = (line: string): void => {
    options.log(line);
    try {
      appendFileSync(logFile, `${line}\n`);
    } catch {
      // The terminal has it; a log file that cannot be written must not stop the reload.
    }
  };
  let served = options.served;
  // Every bundle offline serves was written after its last start; older ones belong to functions gone.
  let offlineStarted = options.offlineStarted;
  const bundles = new BundleIndex(join(projectDir, BUNDLE_DIR));
  const checker = new Checker(projectDir);
  /** Whether the sources on disk failed their check: offline then rebuilds nothing until a save passes. */
  const apply = async (changed: string[]): Promise<boolean> => {
    const began = Date.now();
    log(`live reload: ${changed.join(", ")} changed; checking`);
    await hold(projectDir, true);
    const result = await checker.check(options.appModule, options.tablePrefix);
    if (!result.ok) {
      log(`live reload: the change does not load; still serving the last good version.\n${result.error.trim()}`);
      return true;
    }
    const checked = seconds(began);
    // A spare has its dependencies loaded already; a fresh process (the save came before it was ready) loads them.
    log(`live reload: checked in ${checked} (${checker.lastFromSpare ? "spare process" : "fresh process"})`);
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
      outcome = ready
        ? `serving the new version (${seconds(began)}: check ${checked}, serverless offline's restart ${seconds(restarted)})`
        : "serverless offline did not come back";
    } else {
      const sources = [...changed, ...change.files.map((f) => join("schema-cache", f))].map((f) => join(projectDir, f));
      const maps = await bundles.affected(sources, offlineStarted);
      // Asked even when no bundle read the changed files: offline also rebuilds then the bundles an
      // earlier rebuild left behind (it failed, or read a save that had not been checked yet).
      const done = await rebundle(projectDir, maps);
      const total = await bundles.count(offlineStarted);
      const toRebuild = done?.deferred ?? maps.length;
      outcome =
        done === undefined
          ? `serverless offline did not rebuild: no answer in ${BUNDLE_TIMEOUT_MS / 1000} s; the next save tries again`
          : !done.ok
            ? `esbuild refused the change; still serving the last good version.\n${done.error ?? ""}`
            : maps.length === 0
              ? // A comment in a file no bundle reads, whitespace, a file nothing imports: nothing to wait for.
                `no function changed; watching${
                  toRebuild > 0 ? ` (${toRebuild} bundle(s) an earlier rebuild left behind rebuild again from these sources)` : ""
                }`
              : `serving the new version (${seconds(began)}: check ${checked}, ${
                  done.deferred
                    ? `${toRebuild} of ${total} bundles to rebuild, each at once when a request needs it`
                    : `${maps.length} of ${total} bundles rebuilt in ${(done.ms / 1000).toFixed(1)} s`
                })`;
    }
    // After offline's own output (its route table on a restart), where a user looks last.
    log([`live reload: ${outcome}`, ...change.lines.map((line) => `  ${line}`)].join("\n"));
    return false;
  };
  const run = async (changed: string[]): Promise<void> => {
    let broken = false;
    try {
      broken = await apply(changed);
    } catch (error) {
      log(`live reload: ${error instanceof Error ? error.message : String(error)}; still serving the last good version`);
    } finally {
      // A save that failed its check keeps the hold: a background rebuild would read it.
      if (!broken) await hold(projectDir, false);
      // Once the reload is done, not during it: loading the dependencies would slow the rebuild.
      checker.warm();
    }
  };
  const stopWatching = await watchSources(projectDir, options.watch, run, { since: options.sourcesRead });
  checker.warm();
  log(`live reload: watching ${options.watch.map((d) => `${d}/`).join(", ")}`);
  return () => {
    stopWatching();
    checker.close();
  };
}
