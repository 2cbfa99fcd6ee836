import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * A TypeScript module of the tests run in a Node process of its own, for what is per process: a
 * Lambda cold start (the function modules compose as they load, from the environment then), a
 * working directory (Serverless runs in the service's folder). The unit project's workers share
 * their modules and working directory among files (vitest.config.ts), so such a file hands that
 * part to a child and asserts on what comes back.
 *
 * The parent writes `input` as JSON on the child's stdin; the child answers once over IPC (JSON
 * too), so whatever the code under test prints on stdout (a log line, a metric) is not the answer.
 */

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
// By its path: the child may start in a folder with no node_modules of its own (a service's).
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
// The project's compiler options (decorators) wherever the child starts.
const TSCONFIG = `${PROJECT_DIR}tsconfig.json`;

export interface ChildOptions {
  /** The child's working directory (the project's by default). */
  cwd?: string;
  /** The child's whole environment (this process's by default). */
  env?: NodeJS.ProcessEnv;
}

/** Runs `script` (a module calling `answerParent`) in a fresh Node process with tsx, and resolves with its answer. */
export function runInChild<T>(script: string, input: unknown, options: ChildOptions = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    let output = "";
    let answered = false;
    const child = fork(script, [], {
      cwd: options.cwd ?? PROJECT_DIR,
      env: { ...(options.env ?? process.env), TSX_TSCONFIG_PATH: TSCONFIG },
      execArgv: ["--import", TSX_LOADER],
      stdio: ["pipe", "pipe", "pipe", "ipc"],
    });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString("utf8")).slice(-8_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.once("message", (message) => {
      answered = true;
      resolve(message as T);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (!answered) reject(new Error(`${script} exited (${code ?? signal}) without an answer:\n${output.trim()}`));
    });
    child.stdin?.end(JSON.stringify(input));
  });
}

/** In the child: reads the parent's input, answers with what `run` makes of it, and exits. */
export async function answerParent<I, O>(run: (input: I) => Promise<O>): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const answer = await run(JSON.parse(Buffer.concat(chunks).toString("utf8")) as I);
  // Exit once the answer is out (the IPC channel writes asynchronously): an open client or
  // esbuild's service would otherwise keep the process.
  process.send?.(answer, () => process.exit(0));
}

/** An error as a child reports it, for the parent's assertion messages. */
export function described(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
