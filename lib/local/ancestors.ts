import { listProcesses } from "./processes.ts";

/**
 * The processes `npm start` lives under, up to and including npm itself (or only the direct
 * parent when no npm is above us, e.g. `npx tsx scripts/start.ts`). npm forwards SIGINT and
 * SIGTERM to its script's shell, but the shell dies without passing them on, and SIGHUP or
 * SIGKILL to npm reach nobody: the start script would be orphaned and keep the ports.
 */
export function launchers(pid = process.pid): number[] {
  const byPid = new Map(listProcesses().map((p) => [p.pid, p]));
  const chain: number[] = [];
  for (let current = byPid.get(pid); current && current.ppid > 1; current = byPid.get(current.ppid)) {
    const parent = byPid.get(current.ppid);
    if (!parent) break;
    chain.push(parent.pid);
    if (/(^|[\s/])npm(-cli\.js)?(\s|$)/.test(parent.args)) return chain;
  }
  return chain.slice(0, 1);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, we may just not signal it.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Calls `onGone` once, when the first of `pids` has exited (a check every `intervalMs`, which
 * keeps no event loop alive). Our parent changing also counts: an orphan is re-parented at once.
 */
export function whenAnyExits(pids: readonly number[], onGone: (pid: number) => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : pids.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
