import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHANGES_PROCESS_STATE, LONG, LONG_SERVICE, OWN_SERVICE, SLOW_UNIT } from "./file-lists.ts";
import { changes, take } from "./process-state.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(ROOT, join(ROOT, path))] : [];
  });
}

/** The files of the unit projects: every test file but the end-to-end, service and long ones. */
function unitFiles(): string[] {
  return ["lib", "test", "functions", "app"]
    .flatMap(testFiles)
    .filter((file) => !file.startsWith("test/e2e/") && !LONG.includes(file) && !OWN_SERVICE.includes(file));
}

describe("which unit files share their worker's modules (vitest.config.ts)", () => {
  it("finds no such change in the service files, which `npm test` and `npm run test:long` run in one process each (test/e2e/own-service-chain.test.ts, long-service-chain.test.ts)", () => {
    const changing = [...OWN_SERVICE, ...LONG_SERVICE].filter((file) => CHANGES_PROCESS_STATE.test(readFileSync(join(ROOT, file), "utf8")));
    expect(changing).toEqual([]);
    expect(LONG_SERVICE.filter((file) => !LONG.includes(file))).toEqual([]);
  });

  it("names only files that exist, once each, in every list", () => {
    const units = new Set(unitFiles());
    expect(SLOW_UNIT.filter((file) => !units.has(file))).toEqual([]);
    for (const list of [SLOW_UNIT, LONG, LONG_SERVICE, OWN_SERVICE]) {
      expect(list.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
      expect(new Set(list).size).toBe(list.length);
    }
  });

  it("recognises each kind of change it guards against", () => {
    for (const line of [
      "process.env.PUBLIC_URL = url;",
      'process.env["X"] = "1";',
      'process.env.LOG_LEVEL ??= "warn";',
      "Object.assign(process.env, localAwsEnv());",
      "delete process.env.ALLOW_TEST_USER;",
      'vi.stubEnv("A", "b");',
      "vi.spyOn(Sealer.prototype, 'seal');",
      "globalThis.fetch = stub;",
      "setLogSink(lines);",
      "process.chdir(dir);",
    ]) {
      expect(CHANGES_PROCESS_STATE.test(line), line).toBe(true);
    }
    for (const line of ["if (process.env.CI === 'true')", "const endpoint = process.env.DYNAMODB_ENDPOINT;"])
      expect(CHANGES_PROCESS_STATE.test(line), line).toBe(false);
  });
});

describe("what test/setup/scoped-state.ts finds a file left changed", () => {
  it("names each environment variable, global and the working directory changed, never a value, and puts back what it can", () => {
    const before = take();
    const cwd = process.cwd();
    const name = `SCOPED_STATE_PROBE_${process.pid}`;
    process.env[name] = "a-secret-value";
    const home = process.env.HOME;
    delete process.env.HOME;
    Reflect.set(globalThis, name, 1);
    process.chdir(tmpdir());
    try {
      const found = changes(before);
      expect(found.changed).toEqual([`process.env: ${[name, "HOME"].sort().join(", ")}`, `globalThis: ${name}`, "the working directory"]);
      expect(found.changed.join(" ")).not.toContain("a-secret-value");
      found.restore();
      expect(process.env[name]).toBeUndefined();
      expect(process.env.HOME).toBe(home);
      expect(process.cwd()).toBe(cwd);
    } finally {
      Reflect.deleteProperty(globalThis, name);
      process.chdir(cwd);
      if (home !== undefined) process.env.HOME = home;
      delete process.env[name];
    }
    expect(changes(before).changed).toEqual([]);
  });
});
