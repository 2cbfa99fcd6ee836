import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BORROWED, BorrowedInternalBroken, expectBorrowed } from "../../lib/local/borrowed.mjs";
import { EsbuildBuilds, RECORDER } from "../../lib/local/esbuild-builds.mjs";
import { offlineHandlerRunner, offlineHapiPrototype, offlineStreamsClient } from "../../lib/local/offline-patches.mjs";
import { serverlessEsbuildOf } from "../../lib/local/serverless-esbuild-instance.mjs";
import { serverlessEsbuildFor, writeService } from "../support/serverless-esbuild-service.ts";
import { runInChild } from "../support/tsx-child.ts";
import type { BundleChecks, BundleObservations } from "./borrowed-bundle.ts";

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
const serviceDir = join(scratch, "service");
beforeAll(() => writeService(serviceDir));

// serverless-esbuild names each entry relative to the working directory, and esbuild's service
// process keeps the folder it started in: Serverless runs in the service's folder, so the bundling
// checks run in a process started there (borrowed-bundle.ts), once for both, never in this worker's.
const CHILD = fileURLToPath(new URL("./borrowed-bundle.ts", import.meta.url));
let bundling: Promise<BundleObservations> | undefined;
function bundleChecks(): Promise<BundleObservations> {
  const input: BundleChecks = { serviceDir };
  bundling ??= runInChild<BundleObservations>(CHILD, input, { cwd: serviceDir });
  return bundling;
}
/** A check's observations, or the error it failed with (a broken internal's names its entry). */
function passed<T extends { error?: string }>(observed: T): T {
  if (observed.error !== undefined) throw new Error(observed.error);
  return observed;
}

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
  const initialised = async (builds = new EsbuildBuilds()): Promise<{ plugin: object }> => {
    const plugin = serverlessEsbuildFor(serviceDir, builds);
    await plugin.hooks.initialize?.();
    return { plugin };
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

  // The first of the two bundling checks waits for the child's start and both bundlings.
  it(BORROWED.esbuildBuildCache, { timeout: 60_000 }, async () => {
    const { rebuildIsFunction, rebuiltBundle } = passed((await bundleChecks()).buildCache);
    // Live reload rebuilds with the context serverless-esbuild keeps per entry.
    expect(rebuildIsFunction).toBe(true);
    expect(rebuiltBundle).toContain('"rebuilt"');
  });
});

describe("the public paths used instead of internals", () => {
  it(
    "serverless-esbuild's plugins option: under offline, every build it starts is recorded with its options and what it read",
    { timeout: 60_000 },
    async () => {
      const { recording, options, inputs, outputs } = passed((await bundleChecks()).recorder);
      expect(recording).toBe(true);
      // The options a deploy bundles with: serverless-esbuild's translation of custom.esbuild applied.
      expect(options).toMatchObject({ format: "esm", outExtension: { ".js": ".mjs" }, outdir: join(serviceDir, ".esbuild", ".build", "functions") });
      expect(options).not.toHaveProperty("plugins");
      expect(inputs).toEqual(["functions/fn.ts"]);
      expect(outputs).toContain(".esbuild/.build/functions/fn.mjs");
      expect(RECORDER).toBe("modelrest-build-recorder");
    },
  );

  it("records nothing outside offline, nor over esbuild plugins of the project's own", () => {
    const service = (esbuild: Record<string, unknown>) => ({ service: { custom: { esbuild } } });
    const builds = new EsbuildBuilds();
    expect(builds.record({ ...service({}), processedInput: { commands: ["deploy"] } })).toBe(false);
    expect(builds.record({ ...service({ plugins: "./esbuild-plugins.js" }), processedInput: { commands: ["offline"] } })).toBe(false);
    expect(builds.recording).toBe(false);
  });
});
