import { execFile } from "node:child_process";
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

/** A fresh `node` that imports the bundle and serves one event; `nodeArgs` e.g. `--cpu-prof`. */
export async function coldStart(bundle: string, eventFile: string, env: Record<string, string>, nodeArgs: string[] = [], cwd?: string): Promise<ColdRun> {
  const { stdout } = await run(process.execPath, [...nodeArgs, CHILD, bundle, eventFile], { env, ...(cwd ? { cwd } : {}), maxBuffer: 4 * 1024 * 1024 });
  const line = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as ColdRun;
}
