import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BundleStore, KEEP_STATES } from "../../lib/local/bundle-store.mjs";

let project: string;
let root: string;

const write = (path: string, text: string): void => {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
};
const read = (path: string): string => readFileSync(join(project, path), "utf8");
/** A fresh store each time: one start reads each file once, the next start reads them again. */
const store = (): BundleStore => new BundleStore(root, project);
const BUILD = {
  inputs: ["functions/rest.ts", "lib/a.ts", "package.json", "node_modules/dep/index.js", "<define:process.env.NODE_ENV>"],
  outputs: [".esbuild/.build/functions/rest.mjs", ".esbuild/.build/functions/rest.mjs.map"],
  options: { "functions/rest.ts": { entryPoints: ["functions/rest.ts"], outdir: ".esbuild/.build/functions", minify: true } },
};

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "bundle-store-"));
  root = join(project, "node_modules/.cache/modelrest-bundles");
  write("functions/rest.ts", "import './lib/a.ts'");
  write("lib/a.ts", "export const a = 1;");
  write("package.json", '{ "version": "1.0.0" }');
  write("node_modules/dep/index.js", "module.exports = 1;");
  write(".esbuild/.build/functions/rest.mjs", "bundle v1");
  write(".esbuild/.build/functions/rest.mjs.map", "map v1");
});

afterEach(() => rmSync(project, { recursive: true, force: true }));

describe("the bundles kept between starts", () => {
  it("gives back what a build wrote while every file it read is unchanged", () => {
    store().save("key", BUILD);
    rmSync(join(project, ".esbuild"), { recursive: true });
    const found = store().find("key");
    expect(found?.manifest.options).toEqual(BUILD.options);
    // The pseudo-input esbuild names has no file: it is not an input to compare.
    expect(Object.keys(found?.manifest.inputs ?? {})).toEqual(["functions/rest.ts", "lib/a.ts", "node_modules/dep/index.js", "package.json"]);
    store().restore(found!);
    expect(read(".esbuild/.build/functions/rest.mjs")).toBe("bundle v1");
    expect(read(".esbuild/.build/functions/rest.mjs.map")).toBe("map v1");
    expect(store().find("other key")).toBeUndefined();
  });

  it("misses once any file it read changes, and finds it again when the file is as it was", () => {
    store().save("key", BUILD);
    write("node_modules/dep/index.js", "module.exports = 2;");
    expect(store().find("key")).toBeUndefined();
    write("node_modules/dep/index.js", "module.exports = 1;");
    expect(store().find("key")).toBeDefined();
    rmSync(join(project, "lib/a.ts"));
    expect(store().find("key")).toBeUndefined();
  });

  it("misses when a project folder it read from gains a file (an import may now resolve to it)", () => {
    store().save("key", BUILD);
    write("lib/a.js", "export const a = 2;");
    expect(store().find("key")).toBeUndefined();
    rmSync(join(project, "lib/a.js"));
    // What a running project gains beside its sources, under names no import gives.
    write(".data/dynamodb/shared-local-instance.db", "rows");
    write(".vitest-results.json", "{}");
    write("lib/.a.ts.swp", "an editor's");
    expect(store().find("key")).toBeDefined();
    write("package.ts", "export default {};");
    expect(store().find("key")).toBeUndefined();
    rmSync(join(project, "package.ts"));
    // A file beside a dependency's: the lockfiles in the key say what is installed.
    write("node_modules/dep/README.md", "read me");
    expect(store().find("key")).toBeDefined();
  });

  it("keeps a state per set of sources, and drops the least recently used beyond the limit", async () => {
    const states = (): number => readdirSync(join(root, "key")).length;
    // Use is told by modification times: each step a few milliseconds apart, never at the same one.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    store().save("key", BUILD);
    for (let n = 2; n <= KEEP_STATES + 1; n++) {
      await tick();
      write("lib/a.ts", `export const a = ${n};`);
      write(".esbuild/.build/functions/rest.mjs", `bundle v${n}`);
      store().save("key", BUILD);
      if (n === KEEP_STATES) {
        // The first state is used again: the second, not the first, is the one dropped next.
        write("lib/a.ts", "export const a = 1;");
        expect(store().find("key")).toBeDefined();
        write("lib/a.ts", `export const a = ${n};`);
        await tick();
      }
    }
    expect(states()).toBe(KEEP_STATES);
    write("lib/a.ts", "export const a = 1;");
    const first = store().find("key");
    store().restore(first!);
    expect(read(".esbuild/.build/functions/rest.mjs")).toBe("bundle v1");
    write("lib/a.ts", "export const a = 2;");
    expect(store().find("key")).toBeUndefined();
    // Saving the same state twice keeps one copy.
    write("lib/a.ts", `export const a = ${KEEP_STATES + 1};`);
    store().save("key", BUILD);
    expect(states()).toBe(KEEP_STATES);
    expect(existsSync(join(root, "key"))).toBe(true);
  });
});
