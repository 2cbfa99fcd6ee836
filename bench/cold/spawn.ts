import { execFile } from "node:child_process";
import { availableParallelism } from "node:os";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("./child.mjs", import.meta.url));

export interface ColdRun {
  boot: number;
  import: number;
  request: number;
  total: number;
  status: number;
  body: string;
}

/**
 * The environment every cold start gets: the deployed one (no NODE_OPTIONS, as serverless.yml),
 * the DynamoDB store at `endpoint` (the bench's loopback stub), a region and dummy credentials;
 * nothing from this shell.
 */
export function coldEnv(endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    STORE: "dynamodb",
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_PREFIX: "blog-bench-",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "bench",
    AWS_SECRET_ACCESS_KEY: "bench",
    APP_SECRET: "b".repeat(48),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    ...extra,
  };
}

/**
 * The core cold starts run on (the last one), when `taskset` (util-linux) can pin a process here;
 * undefined when it cannot. A function of 1,024 MB (serverless.yml) runs with less than one vCPU
 * (Lambda gives CPU in proportion to memory, one vCPU at 1,769 MB): V8's compiler and GC threads
 * share it with the main thread, where on a free second core they would run for nothing.
 */
export async function coldStartCore(): Promise<number | undefined> {
  try {
    await run("taskset", ["-c", "0", "true"]);
    return availableParallelism() - 1;
  } catch {
    return undefined;
  }
}

/**
 * A fresh `node` that imports the bundle and serves one event; `nodeArgs` e.g. `--cpu-prof`; on
 * core `cpu` only, when given.
 */
export async function coldStart(
  bundle: string,
  eventFile: string,
  env: Record<string, string>,
  options: { nodeArgs?: string[]; cpu?: number } = {},
): Promise<ColdRun> {
  const command = [process.execPath, ...(options.nodeArgs ?? []), CHILD, bundle, eventFile];
  const [file, ...args] = options.cpu === undefined ? command : ["taskset", "-c", String(options.cpu), ...command];
  const { stdout } = await run(file as string, args, { env, maxBuffer: 4 * 1024 * 1024 });
  const line = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as ColdRun;
}
