import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CheckResult } from "./protocol.ts";

const CHECK_SCRIPT = fileURLToPath(new URL("./check.ts", import.meta.url));
// Importing the application and compiling its validators takes seconds on a loaded machine; a
// child that hangs (a top-level await that never settles) must not stop the loop for good.
const CHECK_TIMEOUT_MS = 60_000;

interface Child {
  process: ChildProcess;
  /** A spare has loaded its dependencies (it said so). */
  ready: boolean;
  /** What it printed (kept for the error, not mixed into npm start's log). */
  output: () => string;
}

function forkCheck(projectDir: string, spare: boolean): Child {
  let output = "";
  const child = fork(CHECK_SCRIPT, spare ? ["--preload"] : [], {
    cwd: projectDir,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-8_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const result: Child = { process: child, ready: !spare, output: () => output };
  if (spare) child.once("message", () => (result.ready = true));
  return result;
}

/** Sends the request to `child` and resolves with its answer; never throws. */
function ask(child: Child, appModule: string, tablePrefix: string): Promise<CheckResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: CheckResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const { process: proc } = child;
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      finish({ ok: false, error: `the check did not finish in ${CHECK_TIMEOUT_MS / 1000} s\n${child.output()}` });
    }, CHECK_TIMEOUT_MS);
    proc.once("message", (message) => finish(message as CheckResult));
    proc.once("error", (error) => finish({ ok: false, error: error.message }));
    proc.once("exit", (code, signal) => {
      finish({ ok: false, error: `the check exited (${code ?? signal}) without an answer\n${child.output().trim()}` });
    });
    if (proc.exitCode !== null || proc.signalCode !== null) {
      finish({ ok: false, error: `the check exited (${proc.exitCode ?? proc.signalCode}) without an answer\n${child.output().trim()}` });
      return;
    }
    proc.send({ appModule, tablePrefix }, (error) => {
      if (error) finish({ ok: false, error: error.message });
    });
  });
}

/** Imports `appModule` in a fresh process and renders what derives from it; never throws. */
export function checkInChild(projectDir: string, appModule: string, tablePrefix: string): Promise<CheckResult> {
  return ask(forkCheck(projectDir, false), appModule, tablePrefix);
}

/**
 * Checks each version in a fresh process, as `checkInChild` does, but keeps one process started
 * ahead (`warm`), its dependencies already loaded: a save then waits only for the project's own
 * modules. Each process checks once; a new spare starts when `warm` is called again.
 */
export class Checker {
  #spare: Child | undefined;

  constructor(readonly projectDir: string) {}

  /** Starts a spare if there is none (call it when the machine is otherwise idle). */
  warm(): void {
    const spare = this.#spare?.process;
    if (spare !== undefined && spare.exitCode === null && spare.signalCode === null) return;
    this.#spare = forkCheck(this.projectDir, true);
  }

  /** A spare has loaded its dependencies and waits for a check. */
  get warmed(): boolean {
    return this.#spare?.ready === true && this.#spare.process.exitCode === null;
  }

  /** Whether the last check ran in a spare (else in a fresh process): npm start says which. */
  lastFromSpare = false;

  check(appModule: string, tablePrefix: string): Promise<CheckResult> {
    const spare = this.#spare;
    this.#spare = undefined;
    const usable = spare !== undefined && spare.ready && spare.process.exitCode === null && spare.process.signalCode === null;
    // One still loading its dependencies would take longer than a fresh one loading only the app's.
    if (!usable) spare?.process.kill("SIGKILL");
    this.lastFromSpare = usable;
    return ask(usable ? spare : forkCheck(this.projectDir, false), appModule, tablePrefix);
  }

  close(): void {
    this.#spare?.process.kill("SIGKILL");
    this.#spare = undefined;
  }
}
