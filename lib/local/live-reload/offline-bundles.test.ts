import { context, type BuildContext } from "esbuild";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { esbuildBuilds } from "../esbuild-builds.mjs";
import LiveReloadBundles, { DONE_FILE, HOLD_FILE, RELOAD_DIR, REQUEST_FILE } from "./offline-bundles.mjs";

/**
 * The plugin's rebuild queue in offline, with a real esbuild context for one function: a rebuild
 * that fails keeps the last good bundle and is done again with the next checked version, whatever
 * that version names; nothing is rebuilt while a save is checked or after one failed its check.
 * (test/e2e/broken-saves.suite.ts plays the same under npm start.)
 */

const serviceDir = mkdtempSync(join(tmpdir(), "offline-bundles-"));
const source = join(serviceDir, "functions", "fn.ts");
const bundle = join(serviceDir, ".esbuild", ".build", "functions", "fn.mjs");
const reloadDir = join(serviceDir, RELOAD_DIR);
let ctx: BuildContext;
let plugin: LiveReloadBundles;
let requests = 0;

const save = (text: string): void => writeFileSync(source, text);
const served = (): string => readFileSync(bundle, "utf8");

/** What npm start's loop writes once a save passed its check: the bundles whose sources changed. */
async function request(bundles: string[]): Promise<void> {
  writeFileSync(join(reloadDir, REQUEST_FILE), JSON.stringify({ id: `r${++requests}`, bundles }));
  await plugin.answer(reloadDir);
}
/** How many bundles the plugin said the last request marked (npm start prints "no function changed" for 0). */
const marked = (): number => (JSON.parse(readFileSync(join(reloadDir, DONE_FILE), "utf8")) as { deferred: number }).deferred;
function hold(held: boolean): void {
  writeFileSync(join(reloadDir, HOLD_FILE), JSON.stringify({ held }));
  plugin.readHold(reloadDir);
}

beforeAll(async () => {
  mkdirSync(join(serviceDir, "functions"), { recursive: true });
  mkdirSync(reloadDir, { recursive: true });
  save('export const handler = async () => "v1";\n');
  // As serverless-esbuild makes it for a function: the entry into .esbuild/.build/functions.
  ctx = await context({
    entryPoints: [source],
    outdir: join(serviceDir, ".esbuild", ".build", "functions"),
    bundle: true,
    format: "esm",
    platform: "node",
    sourcemap: true,
    outExtension: { ".js": ".mjs" },
    logLevel: "silent",
  });
  await ctx.rebuild();
  const serverless = {
    serviceDir,
    pluginManager: { plugins: [], spawn: async () => undefined },
    service: {
      functions: {
        fn: { name: "svc-local-fn", handler: ".esbuild/.build/functions/fn.handler" },
        other: { name: "svc-local-other", handler: ".esbuild/.build/functions/other.handler" },
      },
    },
  };
  plugin = new LiveReloadBundles(serverless);
  // serverless-esbuild's instance (found by its class in offline, test/local/borrowed.test.ts): its contexts.
  plugin.esbuild = () => ({ buildCache: { "functions/fn.ts": { context: ctx } } });
});

afterAll(async () => {
  await ctx.dispose();
  rmSync(serviceDir, { recursive: true, force: true });
});

describe("the live-reload plugin's rebuilds", () => {
  it("a rebuild that fails leaves the last good bundle in service", async () => {
    expect(served()).toContain('"v1"');
    save('export const handler = async () => "v2";\n');
    // v2 passed its check; a syntax error lands before the background rebuild reads the sources.
    save("export const handler = ;\n");
    await request(["functions/fn"]);
    expect(await plugin.freshen("svc-local-fn")).toBe(0);
    expect(served()).toContain('"v1"');
    expect(plugin.pending.has("functions/fn")).toBe(true);
  });

  it("rebuilds nothing while a save is checked, nor after one failed its check", async () => {
    hold(true);
    save('export const handler = async () => "v3";\n');
    plugin.stale.set("functions/fn", ctx);
    expect(await plugin.freshen("svc-local-fn")).toBe(0);
    expect(served()).toContain('"v1"');
    plugin.stale.delete("functions/fn");
  });

  it("the next checked version rebuilds the bundle that failed, though it names no bundle", async () => {
    await request([]);
    expect(marked()).toBe(1);
    expect(plugin.held).toBe(false);
    expect(await plugin.freshen("svc-local-fn")).toBe(1);
    expect(served()).toContain('"v3"');
    expect(plugin.pending.size).toBe(0);
  });

  it("a rebuild that read sources while a newer save was being checked is done again with the next version", async () => {
    save('export const handler = async () => "v4";\n');
    await request(["functions/fn"]);
    const rebuilding = plugin.freshen("svc-local-fn");
    hold(true);
    await rebuilding;
    expect(plugin.pending.has("functions/fn")).toBe(true);
    save('export const handler = async () => "v5";\n');
    await request([]);
    expect(await plugin.freshen("svc-local-fn")).toBe(3);
    expect(served()).toContain('"v5"');
  });

  it("a checked version that changes no bundle, with none left behind, marks none", async () => {
    await plugin.freshen("svc-local-fn");
    await request([]);
    expect(marked()).toBe(0);
  });

  it("builds a bundle serverless-esbuild kept no context of from the options its build was recorded with, and refuses one nobody built", async () => {
    const other = join(serviceDir, "functions", "other.ts");
    writeFileSync(other, 'export const handler = async () => "o1";\n');
    // As the recorder (lib/local/esbuild-builds.mjs) saw serverless-esbuild's build of it.
    esbuildBuilds.builds.set("functions/other.ts", {
      options: {
        entryPoints: [other],
        outdir: join(serviceDir, ".esbuild", ".build", "functions"),
        bundle: true,
        format: "esm",
        platform: "node",
        outExtension: { ".js": ".mjs" },
        logLevel: "silent",
      },
    });
    try {
      await request(["functions/other"]);
      expect(await plugin.freshen("svc-local-other")).toBe(1);
      expect(readFileSync(join(serviceDir, ".esbuild", ".build", "functions", "other.mjs"), "utf8")).toContain('"o1"');
      await request(["functions/unknown"]);
      const done = JSON.parse(readFileSync(join(reloadDir, DONE_FILE), "utf8")) as { ok: boolean; error?: string };
      expect(done).toMatchObject({ ok: false, error: expect.stringContaining("functions/unknown") });
    } finally {
      esbuildBuilds.builds.delete("functions/other.ts");
      for (const made of plugin.made.values()) await made.dispose?.();
    }
  });
});
