import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * On an older Node, the README's commands stop at once and say what to install: `npm start` and
 * `npm test` through scripts/check-node.cjs (their pre-scripts), `npm ci` through .npmrc's
 * engine-strict.
 */

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const SCRIPT = fileURLToPath(new URL("../../scripts/check-node.cjs", import.meta.url));
const require = createRequire(import.meta.url);
const { satisfies } = require(SCRIPT) as { satisfies: (version: string, range: string) => boolean };
const pkg = require("../../package.json") as { engines: { node: string }; scripts: Record<string, string> };

/** A Node older than the project's on this machine (the system one, say), to run the check under. */
function olderNode(): string | undefined {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    const version = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim();
    if (version && !satisfies(version, pkg.engines.node)) return candidate;
  }
  return undefined;
}

describe("the Node version check", () => {
  it("compares versions as >= does", () => {
    expect(satisfies("22.15.0", ">=22.15.0")).toBe(true);
    expect(satisfies("22.23.5", ">=22.15.0")).toBe(true);
    expect(satisfies("24.0.0", ">=22.15.0")).toBe(true);
    expect(satisfies("22.14.9", ">=22.15.0")).toBe(false);
    expect(satisfies("20.20.2", ">=22.15.0")).toBe(false);
    expect(satisfies("v22.9.0", ">=22.15.0")).toBe(false);
    expect(() => satisfies("22.0.0", "^22")).toThrow(/>=X\.Y\.Z/);
  });

  it("runs before npm start and npm test, and npm ci refuses an unsupported engine", () => {
    expect(pkg.scripts.prestart).toBe("node scripts/check-node.cjs");
    expect(pkg.scripts.pretest).toBe("node scripts/check-node.cjs");
    expect(readFileSync(join(PROJECT_DIR, ".npmrc"), "utf8").split("\n")).toContain("engine-strict=true");
  });

  it("passes on this Node", () => {
    expect(spawnSync(process.execPath, [SCRIPT]).status).toBe(0);
  });

  it.skipIf(olderNode() === undefined)("stops an older Node at once, naming the version to install", () => {
    const run = spawnSync(olderNode() as string, [SCRIPT], { encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`needs Node ${pkg.engines.node}`);
    expect(run.stderr).toMatch(/Install Node 22/);
  });
});
