import { execFile } from "node:child_process";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle } from "../../bench/build/bundle.ts";
import { coldEnv } from "../../bench/cold/spawn.ts";
import { startStubDynamoDb, type StubDynamoDb } from "../../bench/cold/stub-dynamodb.ts";
import { REST } from "../../bench/cold/variants.ts";
import { CACHE_FOLDER, generateCompileCache, lambdaNodeFlags, TASK_ROOT } from "../../lib/cli/compile-cache/generate.mjs";

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("../../bench/cold/child.mjs", import.meta.url));
const BUNDLE = "functions/rest-read.mjs";
// Packaging's generator mounts the build folder at /var/task (a mount namespace) and runs Node as
// Lambda's user: root only, as CI runs.
const root = process.getuid?.() === 0;
// The flags Lambda's runtime starts node with for a function of serverless.yml's 1,024 MB.
const LAMBDA_FLAGS = lambdaNodeFlags(1024);

let scratch = "";
let build = "";
let event = "";
let stub: StubDynamoDb | undefined;

beforeAll(async () => {
  if (!root) return;
  scratch = await mkdtemp(join(tmpdir(), "compile-cache-"));
  build = join(scratch, "build");
  await bundle("functions/rest-read.ts", build);
  event = join(scratch, "event.json");
  await writeFile(event, JSON.stringify(REST.event));
  stub = await startStubDynamoDb();
  // For this Node, this machine's architecture and this user: what packaging does for the deployed ones.
  await generateCompileCache({
    buildDir: build,
    bundle: BUNDLE,
    out: join(build, CACHE_FOLDER),
    target: { node: process.versions.node, arch: process.arch === "arm64" ? "arm64" : "x86_64", uid: 0 },
    command: [process.execPath],
    flags: LAMBDA_FLAGS,
  });
}, 120_000);

afterAll(async () => {
  await stub?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Started {
  status: number;
  body: string;
  coldStart: Record<string, unknown> | undefined;
  /** What Node itself said of the bundle's cache entry (NODE_DEBUG_NATIVE=COMPILE_CACHE). */
  nodeAccepted: boolean;
}

/**
 * One cold start of the read function with its cache, from `dir` bound read-only at /var/task as
 * in Lambda (or from `dir` itself when `atTaskRoot` is false), by `node` with `nodeArgs`.
 */
async function coldStart(dir: string, options: { atTaskRoot: boolean; nodeArgs?: string[]; node?: string }): Promise<Started> {
  const base = options.atTaskRoot ? TASK_ROOT : dir;
  const script = options.atTaskRoot
    ? `mount -t tmpfs none /var && mkdir ${TASK_ROOT} && mount --bind "$DIR" ${TASK_ROOT} && mount -o remount,bind,ro ${TASK_ROOT} && exec "$@"`
    : 'exec "$@"';
  const env = {
    ...coldEnv(stub?.endpoint ?? ""),
    DIR: dir,
    NODE_COMPILE_CACHE: join(base, CACHE_FOLDER),
    NODE_DEBUG_NATIVE: "COMPILE_CACHE",
  };
  const command = [options.node ?? process.execPath, ...(options.nodeArgs ?? LAMBDA_FLAGS), CHILD, join(base, BUNDLE), event];
  const { stdout, stderr } = await run("unshare", ["-m", "--propagation", "private", "sh", "-c", script, "start", ...command], {
    env,
    maxBuffer: 8 * 1024 * 1024,
  });
  const lines = stdout.trim().split("\n");
  const answer = JSON.parse(lines.pop() ?? "{}") as { status: number; body: string };
  const coldStart = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === "cold start");
  const nodeAccepted = stderr.includes(`cache for file://${join(base, BUNDLE)} was accepted`);
  return { status: answer.status, body: answer.body, coldStart, nodeAccepted };
}

describe.skipIf(!root)("the compile cache packaging ships, as the function reports it", () => {
  it("is taken at /var/task, read-only, by the Node it was built for: the cold-start line says hit, as Node does", async () => {
    const started = await coldStart(build, { atTaskRoot: true });
    expect(started.nodeAccepted).toBe(true);
    expect(started.coldStart).toMatchObject({ compileCache: "hit", node: process.version, service: "rest", execArgv: LAMBDA_FLAGS.join(" ") });
    expect(started.status).toBe(404);
    expect(started.body).toMatch(REST.body);
  }, 60_000);

  it("built for another path: reported as a miss, and the function still answers", async () => {
    const moved = join(scratch, "moved");
    await cp(build, moved, { recursive: true });
    const started = await coldStart(moved, { atTaskRoot: false });
    expect(started.nodeAccepted).toBe(false);
    expect(started.coldStart).toMatchObject({ compileCache: "miss" });
    expect(String(started.coldStart?.compileCacheReason)).toContain(`built for ${TASK_ROOT}/${BUNDLE}`);
    expect(started.status).toBe(404);
    expect(started.body).toMatch(REST.body);
  }, 60_000);

  it("run with other V8 flags (another memory size's heap flags: another Node folder, as another version has): a miss, and the function still answers", async () => {
    const started = await coldStart(build, { atTaskRoot: true, nodeArgs: lambdaNodeFlags(2048) });
    expect(started.nodeAccepted).toBe(false);
    expect(started.coldStart).toMatchObject({ compileCache: "miss" });
    expect(String(started.coldStart?.compileCacheReason)).toContain(`built for Node ${process.version}`);
    expect(started.status).toBe(404);
  }, 60_000);
});
