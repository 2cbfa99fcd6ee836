import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx webda ...` as a user runs it: the package's bin in a real process. */
function webda(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/webda.mjs", ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      const code = error && typeof error.code === "number" ? error.code : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the webda CLI behaves like a CLI", () => {
  it("prints the overview to stdout with exit 0 for -h, --help and no command", async () => {
    for (const args of [["-h"], ["--help"], []]) {
      const run = await webda(args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stdout).toMatch(/^usage: webda <command>/);
      expect(run.stdout).toContain("auth migrate");
      expect(run.stderr).toBe("");
    }
  }, 60_000);

  it("prints its version from package.json", async () => {
    const { version } = (await import("../../package.json", { with: { type: "json" } })).default;
    const run = await webda(["--version"]);
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  }, 30_000);

  it("answers --help on every command without running it", async () => {
    // A doctored cache directory: `check` itself would exit 1 and name stale files there.
    const empty = mkdtempSync(join(tmpdir(), "webda-cache-"));
    const check = await webda(["check", "--help"], { SCHEMA_CACHE_DIR: empty });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^usage: webda check/);
    expect(check.stderr).toBe("");
    expect(check.stdout).not.toContain("schema-cache/:");
    const keygen = await webda(["keygen", "-h"]);
    expect(keygen.code).toBe(0);
    expect(keygen.stdout).toMatch(/^usage: webda keygen/);
    expect(keygen.stdout).not.toContain('"d"');
    const migrate = await webda(["auth", "migrate", "--help"]);
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/^usage: webda auth migrate/);
  }, 90_000);

  it("names an unknown command or option in one line on stderr, with exit 2", async () => {
    const unknown = await webda(["deploy"]);
    expect(unknown).toMatchObject({ code: 2, stdout: "" });
    expect(unknown.stderr.trim().split("\n")).toEqual(["webda: unknown command 'deploy' (webda --help lists the commands)"]);
    const flag = await webda(["build", "--force"]);
    expect(flag).toMatchObject({ code: 2, stdout: "" });
    expect(flag.stderr.trim()).toBe("webda build: unknown option '--force' (webda build --help)");
  }, 60_000);

  it("answers every command group: its commands on stdout for the group alone or with --help", async () => {
    for (const [args, command] of [
      [["auth"], "migrate"],
      [["auth", "--help"], "migrate"],
      [["db", "-h"], "delete"],
      [["db"], "delete"],
    ] as const) {
      const run = await webda([...args]);
      expect(run, args.join(" ")).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(new RegExp(`^usage: webda ${args[0]} <command>`));
      expect(run.stdout).toMatch(new RegExp(`\\n  ${command}  `));
    }
    const unknown = await webda(["auth", "frobnicate"]);
    expect(unknown).toMatchObject({ code: 2, stdout: "" });
    expect(unknown.stderr.trim().split("\n")).toEqual(["webda auth: unknown command 'frobnicate' (webda auth --help lists its commands)"]);
  }, 90_000);

  it("refuses every wrong flag in one form: one line, the usage hint, exit 2", async () => {
    const cases: [string[], string][] = [
      [["build", "--force"], "webda build: unknown option '--force' (webda build --help)"],
      [["auth", "migrate", "--frobnicate"], "webda auth migrate: unknown option '--frobnicate' (webda auth migrate --help)"],
      [
        ["auth", "migrate", "--local", "--batch", "0"],
        'webda auth migrate: --batch: expected a whole number from 1 to 1000, got "0" (webda auth migrate --help)',
      ],
      [["db", "delete", "--frobnicate"], "webda db delete: unknown option '--frobnicate' (webda db delete --help)"],
      [["db", "delete", "--local", "--key", "x"], "webda db delete: --table: which table? (its full name) (webda db delete --help)"],
      [["validate", "a", "b"], "webda validate: unknown argument 'b' (webda validate --help)"],
    ];
    for (const [args, line] of cases) {
      const run = await webda(args, { APP_SECRET: "s".repeat(48) });
      expect(run, args.join(" ")).toMatchObject({ code: 2, stdout: "" });
      expect(run.stderr.trim().split("\n"), args.join(" ")).toEqual([line]);
    }
  }, 120_000);

  it("exits 2 (configuration), not 1 (database), when a deployed stage's APP_SECRET is missing", async () => {
    const run = await webda(["auth", "migrate", "--stage", "prod"], { APP_SECRET: "" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^webda auth migrate: APP_SECRET is not set/);
  }, 30_000);
});
