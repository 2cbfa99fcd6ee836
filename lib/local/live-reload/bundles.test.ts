import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BundleIndex } from "./bundles.ts";

const root = mkdtempSync(join(tmpdir(), "live-reload-bundles-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const build = join(root, ".esbuild", ".build", "functions");
mkdirSync(build, { recursive: true });
mkdirSync(join(root, "lib"), { recursive: true });

/** A source map as esbuild writes it next to a bundle: sources relative to the map, with their text. */
function bundle(name: string, sources: Record<string, string>): string {
  const path = join(build, `${name}.mjs.map`);
  writeFileSync(
    path,
    JSON.stringify({ version: 3, sources: Object.keys(sources).map((s) => `../../../${s}`), sourcesContent: Object.values(sources), mappings: "" }),
  );
  return path;
}
const source = (name: string, text: string): string => {
  const path = join(root, name);
  writeFileSync(path, text);
  return path;
};

describe("BundleIndex.affected", () => {
  const index = new BundleIndex(join(root, ".esbuild", ".build"));
  const used = source("lib/used.ts", "export const a = 1;\n");
  const shared = source("lib/shared.ts", "export const s = 1;\n");
  const unused = source("lib/unused.ts", "export const u = 1;\n");
  const rest = bundle("rest", { "lib/used.ts": "export const a = 1;\n", "lib/shared.ts": "export const s = 1;\n" });
  const graphql = bundle("graphql", { "lib/shared.ts": "export const s = 1;\n" });

  it("names no bundle for a file none read, nor for a save that left a read file's text as it was", async () => {
    writeFileSync(unused, "// a comment\nexport const u = 1;\n");
    expect(await index.affected([unused, used], 0)).toEqual([]);
  });

  it("names each bundle that read an edited file, a comment-only edit included", async () => {
    writeFileSync(used, "// a comment\nexport const a = 1;\n");
    expect(await index.affected([used], 0)).toEqual([rest]);
    writeFileSync(shared, "export const s = 2;\n");
    expect(await index.affected([shared, unused], 0)).toEqual([graphql, rest]);
  });

  it("counts a deleted source as a change, and skips bundles older than offline's start (functions gone)", async () => {
    rmSync(used);
    expect(await index.affected([used], 0)).toEqual([rest]);
    utimesSync(rest, new Date(1_000), new Date(1_000));
    expect(await index.affected([used, shared], 5_000)).toEqual([graphql]);
  });
});

describe("BundleIndex.count", () => {
  it("counts the bundles built since offline's start, not older ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "live-reload-count-"));
    try {
      const functions = join(dir, "functions");
      mkdirSync(functions);
      for (const name of ["a", "b", "c"]) writeFileSync(join(functions, `${name}.mjs.map`), "{}");
      writeFileSync(join(functions, "a.mjs"), "");
      utimesSync(join(functions, "c.mjs.map"), new Date(1_000), new Date(1_000));
      expect(await new BundleIndex(dir).count(5_000)).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
