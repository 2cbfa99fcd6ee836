import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BORROWED, BorrowedInternalBroken, expectBorrowed } from "../../lib/local/borrowed.mjs";
import { EsbuildBuilds, RECORDER } from "../../lib/local/esbuild-builds.mjs";
import { offlineHandlerRunner, offlineHapiPrototype, offlineStreamsClient } from "../../lib/local/offline-patches.mjs";
import { checkServerlessEsbuild, serverlessEsbuildClass, serverlessEsbuildOf } from "../../lib/local/serverless-esbuild-instance.mjs";

/**
 * The contract of every third-party internal lib/local relies on (lib/local/README.md, "Borrowed
 * internals"), checked against the installed packages: one test per entry, named as the entry,
 * failing with an error that names it. `npm run check:upstream` runs this file against the newest
 * versions within each package's major. What each patch then does with what it reaches is tested
 * in test/local/offline-patches.test.ts and test/local/bundle-cache.test.ts.
 */

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), "borrowed-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// serverless-esbuild resolves the handlers against the working directory, and esbuild reads it
// once: Serverless runs in the service's folder, and so does this file (in ISOLATED for it).
const serviceDir = join(scratch, "service");
const startDir = process.cwd();
beforeAll(() => {
  mkdirSync(join(serviceDir, "functions"), { recursive: true });
  writeFileSync(join(serviceDir, "functions", "fn.ts"), 'export const handler = async () => "built";\n');
  writeFileSync(join(serviceDir, "package.json"), "{}\n");
  process.chdir(serviceDir);
});
afterAll(() => process.chdir(startDir));

/** The "Borrowed internals" table of lib/local/README.md: name -> its cells. */
function table(): Map<string, string[]> {
  const text = readFileSync(join(PROJECT_DIR, "lib/local/README.md"), "utf8");
  const section = text.slice(text.indexOf("## Borrowed internals"));
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) =>
      line
        .split(" | ")
        .map((cell) => cell.replace(/^\| /, "").replace(/ \|$/, "").trim())
        .filter((cell) => cell !== ""),
    );
  return new Map(rows.map((cells) => [(cells[0] ?? "").replaceAll("`", ""), cells.slice(1)]));
}

function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, "package.json")) || JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name !== name) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

/** serverless-esbuild's plugin as Serverless makes it for a one-function service under `serverless offline`, the recorder in its options. */
function serverlessEsbuildFor(serviceDir: string, builds: EsbuildBuilds): object {
  const Plugin = serverlessEsbuildClass();
  const service = {
    provider: { name: "aws", runtime: "nodejs22.x" },
    custom: { esbuild: { bundle: true, format: "esm", outputFileExtension: ".mjs", platform: "node", target: "node22", sourcemap: true } },
    functions: { fn: { handler: "functions/fn.handler" } },
    getFunction: (name: string) => ({ handler: `functions/${name}.handler` }),
    package: {},
  };
  const serverless = {
    config: { serviceDir },
    service,
    cli: { log: () => undefined },
    configSchemaHandler: { defineFunctionProperties: () => undefined },
    pluginManager: { plugins: [] as unknown[], spawn: async () => undefined },
    classes: { Error },
    processedInput: { commands: ["offline"] },
  };
  // As bundle-cache.mjs's `initialize` hook does, before serverless-esbuild's.
  builds.record(serverless);
  const log = Object.assign(() => undefined, {
    verbose: () => undefined,
    error: () => undefined,
    warning: () => undefined,
    notice: () => undefined,
    debug: () => undefined,
  });
  const plugin = new Plugin(serverless, {}, { log }) as { hooks: Record<string, () => Promise<void>> };
  serverless.pluginManager.plugins.push(plugin);
  return plugin;
}

describe("the table of borrowed internals", () => {
  it("lists every entry lib/local checks, each with its package, pinned version, what, what it buys, why no public path does it and what breaks", () => {
    const rows = table();
    expect([...rows.keys()].sort()).toEqual(Object.values(BORROWED).sort());
    for (const [name, cells] of rows) expect(cells, name).toHaveLength(6);
  });

  // npm run check:upstream runs this file against newer versions than the table pins.
  it.skipIf(process.env.MODELREST_CHECK_UPSTREAM === "1")("pins the installed versions", () => {
    for (const [name, cells] of table()) {
      const [pkg, version] = cells as [string, string];
      const installed = pkg === "node" ? process.versions.node.split(".")[0] : installedVersion(pkg.replaceAll("`", "").split(" ")[0] ?? "");
      expect(version, `${name}: the table's version of ${pkg}`).toContain(installed ?? "");
    }
  });

  it("a failed check names its entry and where to read about it", () => {
    expect(() => expectBorrowed(BORROWED.esbuildBuildCache, false, "buildCache is undefined")).toThrow(BorrowedInternalBroken);
    expect(() => expectBorrowed(BORROWED.esbuildBuildCache, false, "buildCache is undefined")).toThrow(
      /^serverless-esbuild buildCache: not as lib\/local relies on it \(buildCache is undefined\).*Borrowed internals/,
    );
  });
});

describe("each borrowed internal in the installed packages", () => {
  const initialised = async (builds = new EsbuildBuilds()): Promise<{ plugin: object; serviceDir: string }> => {
    const plugin = serverlessEsbuildFor(serviceDir, builds) as { hooks: Record<string, () => Promise<void>> };
    await plugin.hooks.initialize?.();
    return { plugin, serviceDir };
  };
  /** serverless-esbuild bundling through a public hook of its own (`serverless run`'s: bundle, no offline). */
  const bundled = async (plugin: object): Promise<void> => {
    await (plugin as { hooks: Record<string, () => Promise<void>> }).hooks["before:run:run"]?.();
  };

  it(BORROWED.handlerRunner, async () => {
    const HandlerRunner = await offlineHandlerRunner();
    expect(typeof HandlerRunner.prototype.run).toBe("function");
  });

  it(BORROWED.offlineHapi, () => {
    const proto = offlineHapiPrototype();
    expect(typeof proto.ext).toBe("function");
    expect(typeof proto.route).toBe("function");
  });

  it(BORROWED.streamsSend, () => {
    const { DynamoDBStreamsClient } = offlineStreamsClient();
    expect(typeof DynamoDBStreamsClient.prototype.send).toBe("function");
  });

  it(BORROWED.esbuildInstance, async () => {
    const { plugin } = await initialised();
    expect(serverlessEsbuildOf({ pluginManager: { plugins: [{}, plugin] } })).toBe(plugin);
    // Found by its class, not by the shape of some other plugin.
    expect(() => serverlessEsbuildOf({ pluginManager: { plugins: [{ buildCache: {}, bundle: async () => undefined }] } })).toThrow(BORROWED.esbuildInstance);
  });

  it(BORROWED.esbuildBuildCache, async () => {
    const { plugin, serviceDir } = await initialised();
    const esbuild = checkServerlessEsbuild(plugin);
    await bundled(plugin);
    // Live reload rebuilds with the context serverless-esbuild keeps per entry.
    const context = esbuild.buildCache["functions/fn.ts"]?.context as { rebuild: () => Promise<unknown>; dispose: () => Promise<void> } | undefined;
    expect(typeof context?.rebuild).toBe("function");
    writeFileSync(join(serviceDir, "functions", "fn.ts"), 'export const handler = async () => "rebuilt";\n');
    await context?.rebuild();
    expect(readFileSync(join(serviceDir, ".esbuild", ".build", "functions", "fn.mjs"), "utf8")).toContain('"rebuilt"');
    await context?.dispose();
    writeFileSync(join(serviceDir, "functions", "fn.ts"), 'export const handler = async () => "built";\n');
  });
});

describe("the public paths used instead of internals", () => {
  it("serverless-esbuild's plugins option: under offline, every build it starts is recorded with its options and what it read", async () => {
    const builds = new EsbuildBuilds();
    const plugin = serverlessEsbuildFor(serviceDir, builds) as { hooks: Record<string, () => Promise<void>> };
    expect(builds.recording).toBe(true);
    await plugin.hooks.initialize?.();
    await plugin.hooks["before:run:run"]?.();
    const build = builds.builds.get("functions/fn.ts");
    // The options a deploy bundles with: serverless-esbuild's translation of custom.esbuild applied.
    expect(build?.options).toMatchObject({ format: "esm", outExtension: { ".js": ".mjs" }, outdir: join(serviceDir, ".esbuild", ".build", "functions") });
    expect(build?.options).not.toHaveProperty("plugins");
    expect(Object.keys(build?.result?.metafile?.inputs ?? {})).toEqual(["functions/fn.ts"]);
    expect(Object.keys(build?.result?.metafile?.outputs ?? {})).toContain(".esbuild/.build/functions/fn.mjs");
    expect(RECORDER).toBe("modelrest-build-recorder");
  });

  it("records nothing outside offline, nor over esbuild plugins of the project's own", () => {
    const service = (esbuild: Record<string, unknown>) => ({ service: { custom: { esbuild } } });
    const builds = new EsbuildBuilds();
    expect(builds.record({ ...service({}), processedInput: { commands: ["deploy"] } })).toBe(false);
    expect(builds.record({ ...service({ plugins: "./esbuild-plugins.js" }), processedInput: { commands: ["offline"] } })).toBe(false);
    expect(builds.recording).toBe(false);
  });
});
