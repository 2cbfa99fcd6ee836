import { spawn } from "node:child_process";
import { createServer, type AddressInfo, type Socket } from "node:net";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { signalGroup, waitForExit } from "../../lib/local/child-process.ts";
import { OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { takeOfflineTurn } from "../support/offline-turn.ts";
import { waitFor } from "../support/wait.ts";
import { assertPortsFree } from "../../lib/local/ports.ts";
import { descendantsOf, listProcesses } from "../../lib/local/processes.ts";
import type { ProcessInfo } from "../../lib/local/processes.ts";

// `npm start` from cold: serverless loads, esbuild bundles the functions, the JVM starts. A busy
// 2-core CI machine running other test files at the same time needs well over the ~15 s seen alone.
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const VERSION_URL = `http://127.0.0.1:${OFFLINE_PORTS.http}/version`;

let child: ChildProcess | undefined;
let output = "";
/** The start's first lines (where DynamoDB Local is): request and function logs push them out of `output`. */
let head = "";
let releaseLock: (() => Promise<void>) | undefined;

function startInOwnGroup(extraEnv: NodeJS.ProcessEnv = {}): ChildProcess {
  const env = { ...process.env };
  // Global setup points tests at its own DynamoDB; `npm start` must start and stop one itself.
  delete env.DYNAMODB_ENDPOINT;
  delete env.TABLE_PREFIX;
  Object.assign(env, extraEnv);
  const started = spawn("npm", ["start"], { cwd: PROJECT_DIR, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer): void => {
    const text = chunk.toString("utf8");
    if (head.length < 40_000) head += text.slice(0, 40_000 - head.length);
    output = (output + text).slice(-20_000);
  };
  started.stdout?.on("data", keep);
  started.stderr?.on("data", keep);
  return started;
}

async function versionAnswer(): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const response = await fetch(VERSION_URL, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: await response.json() };
  } catch {
    return undefined;
  }
}

async function waitForVersion(started: ChildProcess): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (started.exitCode !== null || started.signalCode !== null) {
      throw new Error(`npm start exited (${started.exitCode ?? started.signalCode}) before answering:\n${output}`);
    }
    const answer = await versionAnswer();
    if (answer) return answer;
    await sleep(250);
  }
  throw new Error(`${VERSION_URL} did not answer within ${READY_TIMEOUT_MS} ms:\n${output}`);
}

/** Ports freed by another test's server may linger a moment; anything else holding them is an error. */
async function portsFreeSoon(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertPortsFree(Object.values(OFFLINE_PORTS));
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`cannot run the npm start test: ${(error as Error).message}`, { cause: error });
      }
      await sleep(500);
    }
  }
}

async function survivors(watched: readonly ProcessInfo[], groups: ReadonlySet<number>): Promise<ProcessInfo[]> {
  const pids = new Set(watched.map((p) => p.pid));
  // npm exits as soon as its shell does; the JVM and offline may need a moment longer.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const left = listProcesses().filter((p) => pids.has(p.pid) || groups.has(p.pgid));
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(200);
  }
}

afterAll(async () => {
  // A failed assertion must not leave a server holding the ports for the next run.
  if (child?.pid !== undefined) {
    for (const p of descendantsOf(child.pid)) signalGroup(p.pgid, "SIGKILL");
    signalGroup(child.pid, "SIGKILL");
  }
  await releaseLock?.();
});

/**
 * Starts npm start, waits for /version, then stops it with `stop` and checks nothing it started is
 * left. `reusesBundles`: an earlier start of this file ran on the same sources, so this one copies
 * their bundles (lib/local/bundle-cache.mjs) instead of bundling again.
 */
async function startThenStop(stop: (npmPid: number) => void, expectLine: string, reusesBundles = false): Promise<void> {
  // Other e2e files run `npm start` too, on the same ports: take turns.
  releaseLock = await takeOfflineTurn(2 * READY_TIMEOUT_MS);
  try {
    await portsFreeSoon(10_000);
    output = "";
    head = "";
    const startedAt = Date.now();
    child = startInOwnGroup();
    const pid = child.pid;
    if (pid === undefined) throw new Error("npm start did not spawn");

    const answer = await waitForVersion(child);
    console.info(`npm start answered /version after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    expect(answer).toEqual({ status: 200, body: pkg.version });

    const tree = descendantsOf(pid);
    const java = tree.filter((p) => p.args.includes("DynamoDBLocal"));
    const serverless = tree.filter((p) => p.args.includes("serverless offline"));
    expect(java, "DynamoDB Local runs under npm start").toHaveLength(1);
    expect(serverless, "serverless offline runs under npm start").toHaveLength(1);

    stop(pid);
    expect(await waitForExit(child, STOP_TIMEOUT_MS), `npm did not exit:\n${output}`).toBe(true);

    const groups = new Set([pid, ...serverless.map((p) => p.pgid)]);
    const left = await survivors(tree, groups);
    expect(
      left.map((p) => `${p.pid} ${p.args}`),
      `left running:\n${output}`,
    ).toEqual([]);
    // The next npm start can bind its ports.
    await portsFreeSoon(10_000);
    expect(head).toContain("DynamoDB Local on http://127.0.0.1:");
    // Nothing a newcomer must interpret: the local OpenID provider's warnings are answered.
    expect(head).not.toContain("oidc-provider WARNING");
    expect(output).toContain(expectLine);
    if (reusesBundles) expect(head).toMatch(/esbuild: \d+ bundles unchanged since an earlier start, copied from node_modules\/\.cache\/modelrest-bundles/);
    child = undefined;
  } finally {
    await releaseLock();
    releaseLock = undefined;
  }
}

describe("npm start", () => {
  it("serves /version, then stops everything it started on Ctrl-C", { timeout: 3 * READY_TIMEOUT_MS + 60_000 }, async () => {
    // What a terminal does on Ctrl-C: SIGINT to the whole foreground process group.
    await startThenStop((pid) => signalGroup(pid, "SIGINT"), "SIGINT: stopping");
  });

  // npm forwards SIGTERM to its script's shell, which dies without passing it on; SIGKILL reaches
  // nobody. Both used to orphan the start script, DynamoDB Local and serverless offline.
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`stops everything it started when npm's pid alone gets ${signal}`, { timeout: 3 * READY_TIMEOUT_MS + 60_000 }, async () => {
      await startThenStop((pid) => process.kill(pid, signal), "that started npm start has gone: stopping", true);
    });
  }

  it("loads serverless offline while the database is prepared, then stops it and says why when that fails", { timeout: 3 * READY_TIMEOUT_MS }, async () => {
    releaseLock = await takeOfflineTurn(2 * READY_TIMEOUT_MS);
    // A database that takes connections and answers nothing, until the test makes it fail.
    const held: Socket[] = [];
    const database = createServer((socket) => held.push(socket));
    const failDatabase = (): void => {
      database.close();
      for (const socket of held) socket.destroy();
    };
    try {
      await new Promise<void>((resolve) => database.listen(0, "127.0.0.1", resolve));
      const endpoint = `http://127.0.0.1:${(database.address() as AddressInfo).port}`;
      await portsFreeSoon(10_000);
      output = "";
      head = "";
      child = startInOwnGroup({ DYNAMODB_ENDPOINT: endpoint });
      const pid = child.pid;
      if (pid === undefined) throw new Error("npm start did not spawn");

      // Offline is already loading while the tables wait on the database, and serves nothing yet.
      const offline = await waitFor(
        () => descendantsOf(pid).find((p) => p.args.includes("serverless offline")),
        (p) => p !== undefined,
        "serverless offline to start beside the database",
        READY_TIMEOUT_MS,
      );
      await waitFor(
        () => held.length,
        (n) => n > 0,
        "npm start to call the database",
        READY_TIMEOUT_MS,
      );
      expect(await versionAnswer()).toBeUndefined();
      const tree = descendantsOf(pid);

      failDatabase();
      expect(await waitForExit(child, STOP_TIMEOUT_MS), `npm did not exit:\n${output}`).toBe(true);
      expect(child.exitCode).toBe(1);
      expect(output).toContain(`npm start: the tables could not be created at ${endpoint}`);
      const left = await survivors(tree, new Set([pid, ...(offline ? [offline.pgid] : [])]));
      expect(
        left.map((p) => `${p.pid} ${p.args}`),
        `left running:\n${output}`,
      ).toEqual([]);
      await portsFreeSoon(10_000);
      child = undefined;
    } finally {
      failDatabase();
      await releaseLock();
      releaseLock = undefined;
    }
  });
});
