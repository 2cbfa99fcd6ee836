import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CheckResult } from "./protocol.ts";

const CHECK_SCRIPT = fileURLToPath(new URL("./check.ts", import.meta.url));
// Importing the application and compiling its validators takes seconds on a loaded machine; a
// child that hangs (a top-level await that never settles) must not stop the loop for good.
const CHECK_TIMEOUT_MS = 60_000;

/** Imports `appModule` in a fresh process and renders what derives from it; never throws. */
export function checkInChild(projectDir: string, appModule: string, tablePrefix: string): Promise<CheckResult> {
  return new Promise((resolve) => {
    let settled = false;
    let output = "";
    const finish = (result: CheckResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const child = fork(CHECK_SCRIPT, [appModule, tablePrefix], {
      cwd: projectDir,
      execArgv: ["--import", "tsx"],
      // What the application prints while loading is kept for the error, not mixed into npm start's log.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString("utf8")).slice(-8_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ ok: false, error: `the check did not finish in ${CHECK_TIMEOUT_MS / 1000} s\n${output}` });
    }, CHECK_TIMEOUT_MS);
    child.once("message", (message) => finish(message as CheckResult));
    child.once("error", (error) => finish({ ok: false, error: error.message }));
    child.once("exit", (code, signal) => {
      finish({ ok: false, error: `the check exited (${code ?? signal}) without an answer\n${output.trim()}` });
    });
  });
}
