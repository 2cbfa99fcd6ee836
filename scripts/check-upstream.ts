// `npm run check:upstream`: would the newest versions of the packages whose internals lib/local
// borrows (lib/local/README.md, "Borrowed internals") still do? In a scratch copy of the project,
// installs the newest version within each one's current major (and the newest of what they load
// that a patch reaches), then runs the contract tests there, whose failures name the entry that
// moved. An upgrade is then a decision taken with evidence. Needs the npm registry; not part of CI.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const PROJECT_DIR = fileURLToPath(new URL("..", import.meta.url));
/** The packages the table names, each moved to the newest of its current major. */
const BORROWED_FROM = ["serverless-offline", "serverless-esbuild", "serverless-offline-dynamodb-streams"];
/** What they load that a patch reaches: updated within the ranges they declare. */
const REACHED_THROUGH = ["@hapi/hapi", "@aws-sdk/client-dynamodb-streams"];
const CONTRACT_TESTS = [
  "test/local/borrowed.test.ts",
  "test/local/offline-patches.test.ts",
  "test/local/bundle-cache.test.ts",
  "lib/local/live-reload/keep-last-good.test.ts",
];
const SKIP = new Set(["node_modules", ".git", ".data", ".esbuild", ".serverless", ".scratch", "coverage", "bench/out"]);

function run(command: string, args: string[], cwd: string): number {
  process.stdout.write(`\n$ ${command} ${args.join(" ")}\n`);
  // The contract tests skip their check that the table pins the installed versions.
  return spawnSync(command, args, { cwd, stdio: "inherit", env: { ...process.env, MODELREST_CHECK_UPSTREAM: "1" } }).status ?? 1;
}

function installedVersions(dir: string): Record<string, string> {
  return Object.fromEntries(
    [...BORROWED_FROM, ...REACHED_THROUGH].map((name) => {
      try {
        return [name, (JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as { version: string }).version];
      } catch {
        return [name, "(not installed)"];
      }
    }),
  );
}

const manifest = JSON.parse(readFileSync(join(PROJECT_DIR, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
const wanted = BORROWED_FROM.map((name) => {
  const pinned = manifest.devDependencies[name];
  const major = pinned?.match(/\d+/)?.[0];
  if (!major) throw new Error(`package.json pins no version of ${name}`);
  return `${name}@^${major}`;
});

const scratch = mkdtempSync(join(tmpdir(), "modelrest-upstream-"));
let code = 1;
try {
  cpSync(PROJECT_DIR, scratch, { recursive: true, filter: (source) => !SKIP.has(relative(PROJECT_DIR, source)) });
  const before = installedVersions(PROJECT_DIR);
  if (run("npm", ["ci", "--no-audit", "--no-fund"], scratch) !== 0) throw new Error("npm ci failed in the scratch copy");
  if (run("npm", ["install", "--no-audit", "--no-fund", ...wanted], scratch) !== 0) throw new Error(`npm install ${wanted.join(" ")} failed`);
  if (run("npm", ["update", "--no-audit", "--no-fund", ...REACHED_THROUGH], scratch) !== 0) throw new Error("npm update failed");
  const after = installedVersions(scratch);
  process.stdout.write("\nversions (project -> newest within the major):\n");
  for (const name of Object.keys(after)) process.stdout.write(`  ${name}: ${before[name]} -> ${after[name]}\n`);
  code = run("npx", ["vitest", "run", ...CONTRACT_TESTS], scratch);
  process.stdout.write(
    code === 0
      ? "\ncheck:upstream: every borrowed internal is still there in these versions.\n"
      : "\ncheck:upstream: a contract failed above; its test is named as the entry of lib/local/README.md that moved.\n",
  );
} catch (error) {
  process.stderr.write(`check:upstream: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(code);
