import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { OFFLINE_PORTS } from "../http/offline.ts";
import { LOCAL_HOST } from "./ports.ts";

// Declared where the functions read it (lib/http sits below lib/local); re-exported for the local tools.
export { OFFLINE_PORTS };
/** The stage `serverless offline` runs as; with serverless.yml it gives the `blog-local-` prefix. */
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
  const child = spawn(process.execPath, [bin, ...offlineArgs(options)], {
    cwd: options.projectDir,
    env: options.env,
    stdio: options.filter ? ["inherit", "pipe", "pipe"] : "inherit",
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
