import type { ChildProcess } from "node:child_process";

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves true once `child` has exited, false if it is still running after `timeoutMs`. */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

/** Asks politely, then insists: SIGTERM, and SIGKILL if it outlives `graceMs`. */
export async function terminate(child: ChildProcess, send: (signal: NodeJS.Signals) => void, graceMs: number): Promise<void> {
  if (hasExited(child)) return;
  send("SIGTERM");
  if (await waitForExit(child, graceMs)) return;
  send("SIGKILL");
  await waitForExit(child, graceMs);
}

/** Signals a whole process group (a child spawned with `detached: true` leads its own). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
