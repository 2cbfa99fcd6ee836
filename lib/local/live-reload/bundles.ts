import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/** A bundle's source map: the sources esbuild read, with their text as it read them. */
interface BundleSources {
  mtimeMs: number;
  /** Absolute source path -> hash of the text the bundle was built from. */
  sources: Map<string, string>;
}

const hash = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * Which bundles an edit changes, read from their source maps: esbuild rewrites a bundle (or its
 * map) only when the text of a source it read differs, so a file no bundle read (or read with the
 * same text) changes none. Knowing that before asking for a rebuild spares waiting for a bundle
 * that never comes.
 */
export class BundleIndex {
  readonly #cache = new Map<string, BundleSources>();

  constructor(readonly buildDir: string) {}

  async #read(mapPath: string, mtimeMs: number): Promise<BundleSources> {
    const cached = this.#cache.get(mapPath);
    if (cached?.mtimeMs === mtimeMs) return cached;
    const map = JSON.parse(await readFile(mapPath, "utf8")) as { sources?: string[]; sourcesContent?: (string | null)[]; sourceRoot?: string };
    const base = resolve(dirname(mapPath), map.sourceRoot ?? "");
    const sources = new Map<string, string>();
    (map.sources ?? []).forEach((source, i) => {
      const content = map.sourcesContent?.[i];
      // Without its text a source cannot be compared: any edit of it counts as a change.
      sources.set(resolve(base, source), content == null ? "" : hash(content));
    });
    const read = { mtimeMs, sources };
    this.#cache.set(mapPath, read);
    return read;
  }

  /**
   * The source maps (absolute paths) of the bundles built since `since` (older ones are leftovers
   * of functions gone) that read one of `files` with a text other than the file's text now.
   */
  async affected(files: readonly string[], since: number): Promise<string[]> {
    const entries = await readdir(this.buildDir, { recursive: true, withFileTypes: true }).catch(() => []);
    const current = new Map<string, string | undefined>();
    for (const file of files) {
      const text = await readFile(file, "utf8").catch(() => undefined);
      current.set(resolve(file), text === undefined ? undefined : hash(text));
    }
    const maps: string[] = [];
    for (const entry of entries) {
      // A dot-name is a bundle's last good build kept aside while it rebuilds (keep-last-good.mjs).
      if (!entry.isFile() || !entry.name.endsWith(".mjs.map") || entry.name.startsWith(".")) continue;
      const path = join(entry.parentPath, entry.name);
      const info = await stat(path).catch(() => undefined);
      if (info === undefined || info.mtimeMs < since) continue;
      const { sources } = await this.#read(path, info.mtimeMs);
      for (const [file, text] of current) {
        const built = sources.get(file);
        if (built !== undefined && built !== text) {
          maps.push(path);
          break;
        }
      }
    }
    return maps.sort();
  }

  /** How many bundles were built since `since` (the functions offline serves). */
  async count(since: number): Promise<number> {
    const entries = await readdir(this.buildDir, { recursive: true, withFileTypes: true }).catch(() => []);
    let n = 0;
    for (const entry of entries) {
      // A dot-name is a bundle's last good build kept aside while it rebuilds (keep-last-good.mjs).
      if (!entry.isFile() || !entry.name.endsWith(".mjs.map") || entry.name.startsWith(".")) continue;
      const info = await stat(join(entry.parentPath, entry.name)).catch(() => undefined);
      if (info !== undefined && info.mtimeMs >= since) n += 1;
    }
    return n;
  }
}
