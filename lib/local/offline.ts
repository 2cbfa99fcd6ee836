import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { OFFLINE_PORTS, offlinePort } from "../http/offline.ts";
import { LOCAL_HOST } from "./ports.ts";
import { READY_FD_ENV, READY_LINE } from "./offline-ready.mjs";

/** The descriptor offline reads "ready" on, when held (stdin, stdout and stderr come first). */
const READY_FD = 3;

// Declared where the functions read it (lib/http sits below lib/local); re-exported for the local tools.
export { OFFLINE_PORTS, offlinePort };
/** The stage `serverless offline` runs as; with serverless.yml it gives the `<project>-local-` prefix. */
export const OFFLINE_STAGE = "local";

export interface OfflineOptions {
  projectDir: string;
  dynamodbEndpoint: string;
  tablePrefix: string;
  /** Environment of the serverless process; handlers only see its `AWS_*` part. */
  env: NodeJS.ProcessEnv;
  /** Further serverless params (`--param=name=value`), e.g. the local Idp's issuer and client. */
  params?: Record<string, string>;
  /** Makes a line filter for each of offline's output streams (true keeps a line); without it, offline writes to ours. */
  filter?: () => (line: string) => boolean;
  /**
   * Offline's servers wait for "ready" on a pipe (lib/local/offline-ready.mjs), written with
   * `signalReady` once the database is: offline loads and bundles meanwhile.
   */
  heldUntilReady?: boolean;
}

export function offlineArgs(options: Pick<OfflineOptions, "dynamodbEndpoint" | "tablePrefix" | "params">): string[] {
  return [
    "offline",
    "start",
    `--stage=${OFFLINE_STAGE}`,
    // Handlers get their environment from serverless.yml, not from this process: the params
    // are how the endpoint and prefix reach them.
    `--param=dynamodbEndpoint=${options.dynamodbEndpoint}`,
    `--param=tablePrefix=${options.tablePrefix}`,
    // Mailed links point at the service's own listening origin, never at a request's Host.
    `--param=publicUrl=http://${LOCAL_HOST}:${OFFLINE_PORTS.http}`,
    // Where the functions post to WebSocket connections (the management API offline serves).
    `--param=offlineWebsocketPort=${OFFLINE_PORTS.websocket}`,
    ...Object.entries(options.params ?? {}).map(([name, value]) => `--param=${name}=${value}`),
    `--host=${LOCAL_HOST}`,
    `--httpPort=${OFFLINE_PORTS.http}`,
    `--websocketPort=${OFFLINE_PORTS.websocket}`,
    `--lambdaPort=${OFFLINE_PORTS.lambda}`,
    "--noPrependStageInUrl",
  ];
}

/**
 * Runs `serverless offline start` as the leader of its own process group, so that it and the
 * esbuild service it spawns can be signalled together, and a terminal's Ctrl-C reaches it only
 * through us, in the order we choose.
 */
export function spawnOffline(options: OfflineOptions): ChildProcess {
  const bin = join(options.projectDir, "node_modules", ".bin", "serverless");
  const output = options.filter ? "pipe" : "inherit";
  const child = spawn(process.execPath, [bin, ...offlineArgs(options)], {
    cwd: options.projectDir,
    env: options.heldUntilReady ? { ...options.env, [READY_FD_ENV]: String(READY_FD) } : options.env,
    stdio: ["inherit", output, output, ...(options.heldUntilReady ? (["pipe"] as const) : [])],
    detached: true,
  });
  if (options.filter) {
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      if (!from) continue;
      const keep = options.filter();
      createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => {
        if (keep(line)) to.write(`${line}\n`);
      });
    }
  }
  return child;
}

/**
 * Lets an offline spawned `heldUntilReady` start its servers (`ready` true), or makes it exit
 * (`ready` false: the database could not be prepared, which the caller reports).
 */
export function signalReady(child: ChildProcess, ready: boolean): void {
  const pipe = child.stdio[READY_FD];
  if (!pipe || !("end" in pipe) || pipe.destroyed) return;
  // An offline that has already exited has closed its end; nothing is waiting any more.
  pipe.on("error", () => undefined);
  pipe.end(ready ? `${READY_LINE}\n` : "");
}
