import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHANGES_PROCESS_STATE, ISOLATED, LONG, OWN_SERVICE } from "./file-lists.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// This file quotes the changes it recognises, and makes none.
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

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
  it("lists every unit file that changes process-wide state as isolated", () => {
    const changing = unitFiles().filter((file) => file !== SELF && CHANGES_PROCESS_STATE.test(readFileSync(join(ROOT, file), "utf8")));
    expect(changing.length).toBeGreaterThan(0);
    expect(changing.filter((file) => !ISOLATED.includes(file))).toEqual([]);
  });

  it("finds no such change in the service files, which `npm test` runs in one process (test/e2e/own-service-chain.test.ts)", () => {
    const changing = OWN_SERVICE.filter((file) => CHANGES_PROCESS_STATE.test(readFileSync(join(ROOT, file), "utf8")));
    expect(changing).toEqual([]);
  });

  it("names only files that exist, once each", () => {
    const files = new Set(unitFiles());
    expect(ISOLATED.filter((file) => !files.has(file))).toEqual([]);
    expect(new Set(ISOLATED).size).toBe(ISOLATED.length);
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
