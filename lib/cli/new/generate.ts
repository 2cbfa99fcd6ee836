import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PROJECT_NAME } from "../project.ts";
import { frameworkFiles } from "./files.ts";
import { packageJson, packageLock, readme, vitestConfig } from "./project-files.ts";

const TEMPLATE = join(dirname(fileURLToPath(import.meta.url)), "template");

export interface NewProject {
  /** This project's root: where the framework is copied from. */
  source: string;
  /** The new project's folder: absent or empty. */
  target: string;
  name: string;
}

export class NewProjectRefused extends Error {}

/**
 * The framework's code names no application (test/setup/sample-free.test.ts), but serverless.yml
 * lists the sample's test service, and tsconfig.json the framework's benchmarks: the copy leaves them out.
 */
function adapt(path: string, text: string): string {
  let out = text;
  if (path === "serverless.yml") {
    out = out.replace(/^ {4}# when asked\. The sample's .*\n/m, "    # when asked.\n").replace(/^ {4}testServices: \[.*\]$/m, "    testServices: []");
  }
  if (path === "tsconfig.json") out = out.replace(`"test", "bench", "scripts"`, `"test", "scripts"`);
  return out;
}

/**
 * The example application a new project starts with (app/: one model, its seed, its definition; and
 * its test), named `name`: paths relative to the project, and their text.
 */
export function exampleFiles(name: string): { path: string; text: string }[] {
  return templateFiles().map((file) => ({
    path: relative(TEMPLATE, file).replace(/\.tmpl$/, ""),
    text: readFileSync(file, "utf8").replaceAll("__PROJECT__", name),
  }));
}

function templateFiles(dir = TEMPLATE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(join(dir, entry.name)) : entry.name.endsWith(".tmpl") ? [join(dir, entry.name)] : [],
  );
}

/**
 * Writes the new project: the framework as this project has it, the example application (one
 * model, its test, its seed), package.json and its lock (the same dependencies, so `npm ci` installs
 * from what this project installed), vitest's configuration, a README; then its schema-cache/,
 * rendered by its own `webda build` with this project's node_modules lent for the run.
 * Returns the files written, relative to the target.
 */
export function newProject({ source, target, name }: NewProject): string[] {
  if (!PROJECT_NAME.test(name)) {
    throw new NewProjectRefused(`'${name}' cannot name a project: lowercase letters, digits and dashes, a letter first, 30 at most (--name NAME)`);
  }
  if (existsSync(target) && readdirSync(target).length > 0) throw new NewProjectRefused(`${target} exists and is not empty`);
  const sourcePackage = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as Record<string, unknown> & { webda: { project: string } };
  const written: string[] = [];
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), text);
    written.push(path);
  };
  for (const path of frameworkFiles(source)) write(path, adapt(path, readFileSync(join(source, path), "utf8")));
  for (const { path, text } of exampleFiles(name)) write(path, text);
  const pkg = packageJson(sourcePackage, name);
  write("package.json", `${JSON.stringify(pkg, null, 2)}\n`);
  write("package-lock.json", `${JSON.stringify(packageLock(JSON.parse(readFileSync(join(source, "package-lock.json"), "utf8")), pkg), null, 2)}\n`);
  write("vitest.config.ts", vitestConfig());
  write("README.md", readme(name));
  renderSchemaCache(source, target);
  return written.sort();
}

/** `webda build` in the new project, its node_modules borrowed from this one for the run only. */
function renderSchemaCache(source: string, target: string): void {
  const modules = join(target, "node_modules");
  // The new project's own schema-cache/, whatever this shell points the command at.
  const { SCHEMA_CACHE_DIR: _ignored, ...env } = process.env;
  symlinkSync(join(source, "node_modules"), modules, "dir");
  try {
    execFileSync(process.execPath, [join(target, "bin", "webda.mjs"), "build"], { cwd: target, stdio: ["ignore", "ignore", "pipe"], env });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new NewProjectRefused(`the new project's \`webda build\` failed:\n${stderr}`);
  } finally {
    rmSync(modules);
  }
}
