import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleFiles } from "../../lib/cli/new/generate.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { SAMPLE_TESTS } from "../setup/sample-tests.ts";

/**
 * The sample replaced, as a user replaces it: in a copy of this project, app/ becomes the example a
 * `webda new` project starts with (its test beside it, app/note.test.ts), package.json names the
 * project `tracker`, and `webda build` renders schema-cache/. Then typecheck and lint pass, vitest
 * leaves the sample's own tests out and keeps every other, and the tests that read the project's
 * application or the framework's fixture beside it pass. Cheap as it can be: the other framework
 * tests load nothing from app/ (test/setup/sample-free.test.ts proves it from the sources, and
 * runs here too), so running them again here would show nothing new.
 */
const COMMAND_TIMEOUT_MS = 600_000;

interface Run {
  code: number;
  out: string;
}

let copy: ProjectCopy | undefined;
const dir = (): string => copy?.dir ?? "";

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  // The child writes no result file of its own over the run's (CI's JSON reporter) and prints no colour.
  const { CI: _ci, VITEST_RESULTS: _results, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: dir(), maxBuffer: 32 * 1024 * 1024, env: { ...inherited, NO_COLOR: "1", ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: stripVTControlCharacters(`${stdout}${stderr}`) });
    });
  });
}

const bin = (path: string): string => join(dir(), "node_modules", path);

beforeAll(async () => {
  copy = new ProjectCopy("replaced-app");
  rmSync(join(copy.dir, "app"), { recursive: true, force: true });
  for (const { path, text } of exampleFiles("tracker")) {
    // The example's test goes with it, beside the application (this project's test/ is the framework's).
    const target = path === "test/note.test.ts" ? "app/note.test.ts" : path;
    const adapted = target === "app/note.test.ts" ? text.replaceAll('"../app/', '"./') : text;
    mkdirSync(dirname(join(copy.dir, target)), { recursive: true });
    writeFileSync(join(copy.dir, target), adapted);
  }
  const pkg = JSON.parse(readFileSync(join(copy.dir, "package.json"), "utf8")) as { webda: { project: string } };
  pkg.webda.project = "tracker";
  writeFileSync(join(copy.dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  const build = await run([join(copy.dir, "bin", "webda.mjs"), "build"]);
  if (build.code !== 0) throw new Error(`webda build in the copy failed:\n${build.out}`);
}, COMMAND_TIMEOUT_MS);

afterAll(() => copy?.remove());

describe("the sample replaced by webda new's example", () => {
  it("typechecks", { timeout: COMMAND_TIMEOUT_MS }, async () => {
    const tsc = await run([bin("typescript/bin/tsc"), "--noEmit"]);
    expect(tsc.out).toBe("");
    expect(tsc.code).toBe(0);
  });

  // ESLint runs without type information here (eslint.config.js), file by file: the files that
  // changed are app/'s, and the others' verdicts cannot.
  it("lints", { timeout: COMMAND_TIMEOUT_MS }, async () => {
    const eslint = await run([bin("eslint/bin/eslint.js"), "app"]);
    expect(eslint.out).toBe("");
    expect(eslint.code).toBe(0);
    const prettier = await run([bin("prettier/bin/prettier.cjs"), "--check", "app", "package.json"]);
    expect(prettier.code, prettier.out).toBe(0);
  });

  it(
    "leaves the sample's tests out of every project `npm test` runs, and keeps the framework's and the application's",
    { timeout: COMMAND_TIMEOUT_MS },
    async () => {
      const projects = ["unit", "e2e", "service"].flatMap((name) => ["--project", name]);
      const listed = await run([bin("vitest/vitest.mjs"), "list", "--filesOnly", ...projects], { SERVICE_CHAIN: "1" });
      expect(listed.code, listed.out).toBe(0);
      const files = new Set(listed.out.split("\n").map((line) => line.replace(/^\[[^\]]+\]\s*/, "").trim()));
      expect(SAMPLE_TESTS.filter((file) => files.has(file))).toEqual([]);
      for (const file of [
        "app/note.test.ts",
        "test/setup/sample-free.test.ts",
        "test/core/application.test.ts",
        "lib/store/table-prefix.test.ts",
        "test/e2e/own-service-chain.test.ts",
      ]) {
        expect(files, file).toContain(file);
      }
    },
  );

  it(
    "passes the tests that read the project's application or schema-cache/, the fixture's that once read them, and the chain of service files (none left)",
    { timeout: COMMAND_TIMEOUT_MS },
    async () => {
      const unit = await run(
        [
          bin("vitest/vitest.mjs"),
          "run",
          "--project",
          "unit",
          "--project",
          "service",
          "app/note.test.ts",
          "test/setup/sample-free.test.ts",
          "test/schema-cache.test.ts",
          "test/core/standalone-validators.test.ts",
          "test/functions/composition.test.ts",
          "test/graphql/schema.test.ts",
          "lib/cli/validate/validate.test.ts",
          "test/e2e/own-service-chain.test.ts",
        ],
        { SERVICE_CHAIN: "1" },
      );
      expect(unit.code, unit.out).toBe(0);
      expect(unit.out).toMatch(/Test Files\s+7 passed \| 1 skipped \(8\)/);
    },
  );
});
