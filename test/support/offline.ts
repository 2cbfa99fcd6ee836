import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { signalGroup, waitForExit } from "../../lib/local/child-process.ts";
import { OFFLINE_PORT_ENV } from "../../lib/http/offline.ts";
import { offlinePort, OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { isPortFree } from "../../lib/local/ports.ts";
import { descendantsOf } from "../../lib/local/processes.ts";
import { takeOfflineTurn } from "./offline-turn.ts";

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
export const OFFLINE_URL = `http://127.0.0.1:${OFFLINE_PORTS.http}`;
// Cold start: serverless loads, esbuild bundles, the JVM starts; slow CI machines need the margin.
export const READY_TIMEOUT_MS = 150_000;
async function portsFree(deadline: number, env: NodeJS.ProcessEnv): Promise<void> {
  const ports = (["http", "websocket", "lambda"] as const).map((kind) => offlinePort(kind, { ...process.env, ...env }));
  for (;;) {
    const free = await Promise.all(ports.map((p) => isPortFree(p)));
    if (free.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`ports ${ports.join(", ")} stayed busy`);
    await sleep(500);
  }
}

export interface Offline {
  url: string;
  /** The `npm start` process: DynamoDB Local and offline run below it. */
  pid: number;
  output: () => string;
  /**
   * Resolves once the output holds `text`, rejects with the output after `timeoutMs`. The start
   * prints its banner after its own probe answers, which may be after the caller's did.
   */
  waitForOutput: (text: string, timeoutMs?: number) => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * `npm start`'s script (serverless offline + its own DynamoDB Local) with the test-user hook on,
 * ready once GET /version answers; `stop` ends its whole process group. Empty tables unless told
 * otherwise (`args: []` seeds the sample blog, as a plain `npm start` does).
 */
export interface OfflineOptions {
  args?: string[];
  testUser?: boolean;
  projectDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The GET that answers once it is ready: `/version` (the sample's), another for an application without one. */
  readyPath?: string;
}

/**
 * A service of the calling file's own, for a file that needs what the shared one
 * (test/support/shared-offline.ts) cannot give: other start arguments or environment, a project
 * copy, a database it stalls. The shared service, if this run has one, steps aside meanwhile.
 */
export async function startOffline(options: OfflineOptions = {}): Promise<Offline> {
  // e2e files (and the package test, which rewrites .esbuild/) take turns on the fixed ports.
  return launchOffline(options, await takeOfflineTurn(READY_TIMEOUT_MS * 2));
}

/**
 * `npm start` of a project copy on ports of the caller's own (`options.env` names each of offline's
 * and DynamoDB Local's): nothing it binds or writes is another start's, so it takes no turn on the
 * offline lock and runs beside any other start.
 */
export async function startOwnOffline(options: OfflineOptions & { projectDir: string; env: NodeJS.ProcessEnv }): Promise<Offline> {
  const missing = [...Object.values(OFFLINE_PORT_ENV), "DYNAMODB_PORT"].filter((name) => options.env[name] === undefined);
  if (missing.length > 0) throw new Error(`startOwnOffline needs ports of its own: ${missing.join(", ")} unset`);
  return launchOffline(options, async () => undefined);
}

/** Starts `npm start` once the caller holds the offline lock; `release` gives it back after the stop. */
export async function launchOffline(options: OfflineOptions, release: () => Promise<void>): Promise<Offline> {
  const args = options.args ?? ["--empty"];
  const deadline = Date.now() + READY_TIMEOUT_MS * 2;
  let child: ChildProcess | undefined;
  let output = "";
  let head = "";
  const stop = async (): Promise<void> => {
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      // offline and DynamoDB Local lead groups of their own: note them before asking politely.
      const descendants = descendantsOf(child.pid);
      signalGroup(child.pid, "SIGINT");
      if (!(await waitForExit(child, 30_000))) {
        for (const p of descendants) signalGroup(p.pgid, "SIGKILL");
        signalGroup(child.pid, "SIGKILL");
      }
    }
    await release();
  };
  // Another start's ports (`env.OFFLINE_HTTP_PORT` and the like) move where it is awaited.
  const url = `http://127.0.0.1:${offlinePort("http", { ...process.env, ...options.env })}`;
  try {
    await portsFree(deadline, options.env ?? {});
    // Every request of a test comes from 127.0.0.1: one source, whose share of the mail budget
    // (10 a minute by default) a file's many sign-ups would spend. A test of the share sets its own.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ALLOW_TEST_USER: options.testUser === false ? "false" : "true",
      MAILS_PER_SOURCE_PER_MINUTE: "1000",
      ...options.env,
    };
    // Global setup points tests at its DynamoDB; `npm start` starts and stops its own.
    delete env.DYNAMODB_ENDPOINT;
    delete env.TABLE_PREFIX;
    child = spawn(process.execPath, [join(PROJECT_DIR, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/start.ts", ...args], {
      cwd: options.projectDir ?? PROJECT_DIR,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The start's first lines (where DynamoDB Local is, the banner) and the latest ones: request
    // logs would otherwise push the former out.
    const keep = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      if (head.length < 40_000) head += text.slice(0, 40_000 - head.length);
      output = (output + text).slice(-20_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const ready = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited before answering:\n${output}`);
      const ok = await fetch(`${url}${options.readyPath ?? "/version"}`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > ready) throw new Error(`${url}${options.readyPath ?? "/version"} did not answer in time:\n${output}`);
      await sleep(300);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const pid = child?.pid;
  if (pid === undefined) {
    await stop();
    throw new Error("npm start has no pid");
  }
  const seen = (): string => (head.length < 40_000 ? head : `${head}\n[...]\n${output}`);
  const waitForOutput = async (text: string, timeoutMs = 30_000): Promise<void> => {
    const until = Date.now() + timeoutMs;
    while (!seen().includes(text)) {
      if (Date.now() > until) throw new Error(`npm start did not print ${JSON.stringify(text)} in ${timeoutMs} ms:\n${seen()}`);
      await sleep(100);
    }
  };
  return { url, pid, output: seen, waitForOutput, stop };
}
