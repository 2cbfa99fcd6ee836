import { spawn, type ChildProcess } from "node:child_process";

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A README block as a reader's shell runs it (bash, stop at the first failure), in its own process group. */
export function bash(script: string, cwd: string): ChildProcess {
  return spawn("bash", ["-e", "-o", "pipefail", "-c", script], { cwd, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true });
}

export function runBlock(script: string, cwd: string, timeoutMs: number): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = bash(script, cwd);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(new Error(`timed out after ${timeoutMs} ms:\n${script}\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
