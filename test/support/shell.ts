import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A README block as a reader's shell runs it (bash, stop at the first failure), in its own process group. */
export function bash(script: string, cwd: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn("bash", ["-e", "-o", "pipefail", "-c", script], { cwd, env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true });
}

export function runBlock(script: string, cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = bash(script, cwd, env);
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

/**
 * One shell a reader types into, fed block by block: a variable a block sets (`TOKEN=...`) and
 * the directory it moves to are there for the next block. Like a script under `set -e`, a failing
 * command ends the session, and every later block reports that.
 */
export class ShellSession {
  private readonly child: ChildProcess;
  private stdout = "";
  private stderr = "";

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn("bash", ["--noprofile", "--norc", "-e", "-o", "pipefail"], {
      cwd,
      env: { ...env, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.child.stdout?.on("data", (c: Buffer) => (this.stdout += c.toString("utf8")));
    this.child.stderr?.on("data", (c: Buffer) => (this.stderr += c.toString("utf8")));
  }

  /** Runs one block; `code` is 0 once the block ran through, else the status that ended the session. */
  run(script: string, timeoutMs: number): Promise<Output> {
    const { child } = this;
    if (child.exitCode !== null || child.signalCode !== null || !child.stdin) {
      return Promise.reject(
        new Error(`the shell session ended (${child.exitCode ?? child.signalCode}) before this block:\n${script}\n${this.stderr.slice(-2000)}`),
      );
    }
    const marker = `--- end of block ${randomUUID()} ---`;
    const from = { stdout: this.stdout.length, stderr: this.stderr.length };
    // Braces keep the block in this shell (no subshell: its variables stay); stdin from /dev/null
    // so that no command of the block reads the blocks that follow. The marker starts a line of
    // its own: curl prints no newline after a body.
    child.stdin.write(`{\n${script}\n} </dev/null\nprintf '\\n%s\\n' '${marker}'; printf '\\n%s\\n' '${marker}' >&2\n`);
    const ended = (text: string): number => text.indexOf(`\n${marker}\n`);
    return new Promise((resolve, reject) => {
      const done = (code: number | null): void => {
        clearInterval(poll);
        clearTimeout(timer);
        child.off("close", onExit);
        const cut = (text: string, start: number): string => {
          const rest = text.slice(start);
          const end = ended(rest);
          return end < 0 ? rest : rest.slice(0, end);
        };
        resolve({ code, stdout: cut(this.stdout, from.stdout), stderr: cut(this.stderr, from.stderr) });
      };
      const onExit = (code: number | null): void => done(code ?? 1);
      const poll = setInterval(() => {
        if (ended(this.stdout.slice(from.stdout)) >= 0 && ended(this.stderr.slice(from.stderr)) >= 0) done(0);
      }, 20);
      const timer = setTimeout(() => {
        clearInterval(poll);
        child.off("close", onExit);
        reject(new Error(`timed out after ${timeoutMs} ms:\n${script}\n${this.stdout.slice(from.stdout)}\n${this.stderr.slice(from.stderr)}`));
      }, timeoutMs);
      child.once("close", onExit);
    });
  }

  /** The session's processes, whatever still runs in them. */
  close(): void {
    if (this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid, "SIGKILL");
      } catch {
        // Already gone between the check and the signal.
      }
    }
  }
}
