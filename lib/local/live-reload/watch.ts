import { watch } from "node:fs";
import type { FSWatcher } from "node:fs";
import { join } from "node:path";

// Editors save in bursts (a temporary file, a rename, a second write): one rebuild per save.
const DEBOUNCE_MS = 250;
const SOURCE = /\.(ts|mts|mjs|js|json)$/;

/**
 * Calls `onChange` with the files changed under `dirs` (recursively), debounced, and never while
 * a previous call is still running: changes made meanwhile are collected for the next call.
 * Tests and files that are not sources (editor swap files) are not changes. Returns a stop function.
 */
export function watchSources(root: string, dirs: readonly string[], onChange: (files: string[]) => Promise<void>): () => void {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  const run = async (): Promise<void> => {
    if (busy || pending.size === 0) return;
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
    clearTimeout(timer);
    timer = setTimeout(() => void run(), DEBOUNCE_MS);
  };
  const watchers: FSWatcher[] = dirs.map((dir) =>
    watch(join(root, dir), { recursive: true }, (_event, name) => {
      if (name === null || !SOURCE.test(name) || name.endsWith(".test.ts")) return;
      pending.add(join(dir, name));
      schedule();
    }),
  );
  return () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
