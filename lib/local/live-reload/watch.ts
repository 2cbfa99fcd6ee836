import { watch } from "node:fs";
import type { FSWatcher } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";

// Editors save in bursts (a temporary file, a rename, a second write): one rebuild per save.
const DEBOUNCE_MS = 250;
const SOURCE = /\.(ts|mts|mjs|js|json)$/;
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

function isSource(path: string): boolean {
  return SOURCE.test(path) && !path.endsWith(".test.ts");
}

export interface WatchOptions {
  /**
   * Files and folders modified at or after this time (ms) count as changed when the watch starts:
   * saves made between reading the sources and watching them are not lost.
   */
  since?: number;
}

/** Every folder under `dir` (itself included), and the sources in them modified since `since`. */
async function walk(dir: string, since: number | undefined): Promise<{ dirs: string[]; recent: string[] }> {
  const dirs = [dir];
  const recent: string[] = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    if (
      relative(dir, path)
        .split(sep)
        .some((part) => SKIPPED_DIRS.has(part))
    )
      continue;
    if (entry.isDirectory()) dirs.push(path);
    else if (since !== undefined && entry.isFile() && isSource(entry.name)) {
      const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: 0 }));
      if (mtimeMs >= since) recent.push(path);
    }
  }
  if (since !== undefined && recent.length === 0) {
    // A deletion leaves no file to look at; it updates its folder's time. (With a file saved as
    // well, that save alone makes the check, which reads every source anyway.)
    for (const folder of dirs) {
      const { mtimeMs } = await stat(folder).catch(() => ({ mtimeMs: 0 }));
      if (mtimeMs >= since) recent.push(folder);
    }
  }
  return { dirs, recent };
}

/**
 * Calls `onChange` with the files changed under `dirs` (recursively, paths relative to `root`),
 * debounced, and never while a previous call is still running: changes made meanwhile are collected
 * for the next call. Tests and files that are not sources (editor swap files) are not changes.
 * Resolves, once every folder is watched, with a stop function.
 *
 * Each folder is watched on its own, not each file: a save by rename (sed -i, vim, formatters)
 * puts a new file in place of the old one, and a watch held on the old file would see nothing of
 * the next save. A folder sees its entries created, renamed over, written and deleted.
 */
export async function watchSources(
  root: string,
  dirs: readonly string[],
  onChange: (files: string[]) => Promise<void>,
  options: WatchOptions = {},
): Promise<() => void> {
  const pending = new Set<string>();
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  let stopped = false;
  const run = async (): Promise<void> => {
    if (busy || stopped || pending.size === 0) return;
    busy = true;
    const files = [...pending].sort();
    pending.clear();
    try {
      await onChange(files);
    } finally {
      busy = false;
      // What changed during the rebuild gets one of its own.
      if (pending.size > 0) schedule();
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), DEBOUNCE_MS);
  };
  const changed = (path: string): void => {
    pending.add(relative(root, path));
    schedule();
  };
  const forget = (dir: string): void => {
    for (const [path, watcher] of watchers) {
      if (path === dir || path.startsWith(dir + sep)) {
        watcher.close();
        watchers.delete(path);
      }
    }
  };
  const watchDir = (dir: string): void => {
    if (stopped || watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => void onEvent(dir, name));
    } catch {
      return; // Gone before it could be watched: its parent reported it.
    }
    // A watched folder that is deleted or renamed away errors or stops reporting; its parent saw it go.
    watcher.on("error", () => forget(dir));
    watchers.set(dir, watcher);
  };
  const watchTree = async (dir: string, since: number | undefined): Promise<string[]> => {
    const found = await walk(dir, since);
    for (const folder of found.dirs) watchDir(folder);
    return found.recent;
  };
  const onEvent = async (dir: string, name: string | Buffer | null): Promise<void> => {
    if (stopped || name === null) return;
    const path = join(dir, name.toString());
    if (SKIPPED_DIRS.has(name.toString())) return;
    if (isSource(path)) {
      changed(path);
      return;
    }
    // Not a source by name: a folder created or moved in brings its sources; one removed takes them.
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) {
      if (watchers.has(path)) return;
      await watchTree(path, undefined);
      for (const file of (await walk(path, 0)).recent) if (isSource(file)) changed(file);
    } else if (info === undefined && watchers.has(path)) {
      forget(path);
      changed(path);
    }
  };
  for (const dir of dirs) {
    for (const path of await watchTree(join(root, dir), options.since)) changed(path);
  }
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
}
