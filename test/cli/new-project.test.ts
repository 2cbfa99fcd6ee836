import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => {
      const plain = stripVTControlCharacters;
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout: plain(stdout), stderr: plain(stderr) });
    });
  });
}

const webda = (args: string[], cwd = ROOT): Promise<Run> => run(process.execPath, [join(ROOT, "bin", "webda.mjs"), ...args], cwd);

/** Every file of a project, relative to it, node_modules left out. */
function filesOf(dir: string, under = dir): string[] {
  return readdirSync(under).flatMap((entry) => {
    const full = join(under, entry);
    if (entry === "node_modules") return [];
    return statSync(full).isDirectory() ? filesOf(dir, full) : [relative(dir, full)];
  });
}

const parent = mkdtempSync(join(tmpdir(), "webda-new-"));
const project = join(parent, "tracker");
let created: Run;

beforeAll(async () => {
  // As a user types it, from this project's folder, naming a sibling folder.
  created = await webda(["new", relative(ROOT, project)]);
}, 120_000);

describe("webda new", () => {
  it("writes the project named after its folder: the framework, an example model with its test and seed, its schema-cache", () => {
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("npm ci && npm start");
    const files = filesOf(project);
    for (const file of [
      "app/models/note.ts",
      "app/models/user.ts",
      "app/seed/data.ts",
      "app/definition.ts",
      "test/note.test.ts",
      "lib/index.ts",
      "functions/rest.ts",
    ]) {
      expect(files, file).toContain(file);
    }
    for (const file of [
      "bin/webda.mjs",
      "scripts/start.ts",
      "scripts/seed.ts",
      "serverless.yml",
      "tsconfig.json",
      "vitest.config.ts",
      "eslint.config.js",
      "lint/layers.js",
    ]) {
      expect(files, file).toContain(file);
    }
    // Not the sample's models, nor the framework's own tests (they exercise the sample).
    expect(files.filter((f) => f.startsWith("app/models/"))).toEqual([
      "app/models/index.ts",
      "app/models/note.ts",
      "app/models/policy.ts",
      "app/models/user.ts",
    ]);
    expect(files.filter((f) => /\.test\.(ts|mjs)$/.test(f))).toEqual(["test/note.test.ts"]);
    const routes = (JSON.parse(readFileSync(join(project, "schema-cache/routes.json"), "utf8")) as { key: string }[]).map((r) => r.key);
    expect(routes).toContain("POST /notes");
    expect(routes).not.toContain("POST /posts");
    const readme = readFileSync(join(project, "README.md"), "utf8");
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm ci && npm test");
  });

  it("names the project in package.json once, and keeps this project's dependencies and lock in step", () => {
    const ours = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg).toMatchObject({ name: "tracker", webda: { project: "tracker", app: "app/index.ts" } });
    expect(pkg.dependencies).toEqual(ours.dependencies);
    expect(pkg.devDependencies).toEqual(ours.devDependencies);
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as { name: string; packages: Record<string, Record<string, unknown>> };
    expect(lock.name).toBe("tracker");
    expect(lock.packages[""]).toMatchObject({ name: "tracker", dependencies: pkg.dependencies, devDependencies: pkg.devDependencies });
    expect(readFileSync(join(project, "serverless.yml"), "utf8")).toMatch(/^service: \$\{file\(\.\/package\.json\):webda\.project\}$/m);
    expect(readFileSync(join(project, "app/definition.ts"), "utf8")).toContain('from: "no-reply@tracker.example.com"');
  });

  it("names the sample nowhere (grep -ri blog finds nothing)", () => {
    const named = filesOf(project).filter((file) => /blog/i.test(file) || /blog/i.test(readFileSync(join(project, file), "utf8")));
    expect(named).toEqual([]);
  });

  it("typechecks and passes its own tests (this project's node_modules lent to it)", async () => {
    symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
    const tsc = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "tsconfig.json"], project);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
    const tests = await run(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--reporter", "dot"], project);
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/Tests {2}2 passed/);
    // The application the tools build is the project's, named as its package.json says.
    const name = await run(
      process.execPath,
      ["--import", "tsx", "-e", 'const { app } = await import("./app/index.ts"); console.log(app.name, app.models().map((m) => m.name).join(","))'],
      project,
    );
    expect(name.stdout.trim()).toBe("tracker Note,User");
    // Its own `npm run build` (the webda command, as package.json's scripts run it) finds schema-cache/ up to date.
    const build = await run("npm", ["run", "--silent", "build"], project);
    expect(build.stdout.trim(), build.stderr).toBe("schema-cache/: up to date");
  }, 300_000);

  it("refuses a name that cannot name a stack or tables, and a folder that is not empty, with exit 2", async () => {
    const bad = await webda(["new", join(parent, "x"), "--name", "Bad_Name"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^webda new: 'Bad_Name' cannot name a project/);
    const taken = join(parent, "taken");
    mkdirSync(taken);
    writeFileSync(join(taken, "keep.txt"), "mine");
    const busy = await webda(["new", taken]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/exists and is not empty/);
    expect(readdirSync(taken)).toEqual(["keep.txt"]);
    expect(existsSync(join(parent, "x"))).toBe(false);
    const none = await webda(["new"]);
    expect(none).toMatchObject({ code: 2, stdout: "" });
    expect(none.stderr.trim()).toBe("webda new: name the new project's folder (webda new --help)");
  }, 120_000);
});
