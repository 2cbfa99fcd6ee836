import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));

// Local state and build output: a copy starts as a fresh clone would, with its own database.
const SKIP = new Set(["node_modules", ".git", ".data", ".esbuild", ".serverless", ".scratch", "coverage", "bench/out", ".vitest-results.json"]);

/**
 * A copy of the project in a temporary folder, its node_modules linked rather than copied, where a
 * test may edit files as a user would (a model added, a service option changed) and run `npm start`.
 */
export class ProjectCopy {
  readonly dir: string;

  constructor(prefix: string) {
    this.dir = mkdtempSync(join(tmpdir(), `modelrest-${prefix}-`));
    cpSync(PROJECT_DIR, this.dir, { recursive: true, filter: (source) => !SKIP.has(relative(PROJECT_DIR, source)) });
    symlinkSync(join(PROJECT_DIR, "node_modules"), join(this.dir, "node_modules"), "dir");
  }

  /** The project's own version of `file`, as the copy was made from it. */
  original(file: string): string {
    return readFileSync(join(PROJECT_DIR, file), "utf8");
  }

  write(file: string, text: string): void {
    writeFileSync(join(this.dir, file), text);
  }

  /**
   * Rewrites `file` from the project's own version with each [from, to] replaced once; throws when a
   * `from` is not found, so a test never runs on an edit that silently did not happen.
   */
  edit(file: string, replacements: readonly (readonly [string, string])[]): void {
    let text = this.original(file);
    for (const [from, to] of replacements) {
      if (!text.includes(from)) throw new Error(`${file} has no '${from}' to replace: the test's edit is out of date`);
      text = text.replace(from, to);
    }
    this.write(file, text);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
