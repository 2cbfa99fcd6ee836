import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * What a new project takes from this one, as it stands in a clean clone: the framework (lib/, the
 * functions that serve it, the `webda` command, the scripts `npm start` and `npm run seed` run,
 * the lint rules), and serverless.yml. Not the sample application (app/), its tests, the
 * framework's own test suite (test/), docs/, bench/ or schema-cache/ (the new project renders its own).
 */
export const FRAMEWORK_PATHS = [
  "lib",
  "functions",
  "bin",
  "lint",
  "scripts/start.ts",
  "scripts/seed.ts",
  "eslint.config.js",
  ".prettierrc.json",
  ".prettierignore",
  ".gitignore",
  "tsconfig.json",
  "serverless.yml",
];

/** Tests stay with the framework: they exercise the sample application, which a new project lacks. */
const left = (path: string): boolean => /\.test\.(ts|mjs|js)$/.test(path) || path.split(sep).some((part) => part === "node_modules");

/** Every file under the framework paths, relative to `root`, sorted. */
export function frameworkFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (path: string): void => {
    const full = join(root, path);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full)) walk(join(path, entry));
    } else if (!left(path)) {
      files.push(path);
    }
  };
  for (const path of FRAMEWORK_PATHS) walk(path);
  return files.map((f) => relative(".", f)).sort();
}
