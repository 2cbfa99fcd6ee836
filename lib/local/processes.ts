import { execFileSync } from "node:child_process";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  args: string;
}

/**
 * Live processes from `ps`. Zombies are left out: an orphan's exit is reaped by whatever PID 1
 * the machine has, and some container inits never reap, yet a zombie holds no port or memory.
 */
export function listProcesses(): ProcessInfo[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,pgid=,stat=,args="], { encoding: "utf8" });
  const rows: ProcessInfo[] = [];
  for (const line of out.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match || match[4]?.startsWith("Z")) continue;
    rows.push({ pid: Number(match[1]), ppid: Number(match[2]), pgid: Number(match[3]), args: match[5] ?? "" });
  }
  return rows;
}

export function isRunning(pid: number): boolean {
  return listProcesses().some((p) => p.pid === pid);
}

/** Every process below `pid` (children, grandchildren, ...), as the tree stands now. */
export function descendantsOf(pid: number): ProcessInfo[] {
  const all = listProcesses();
  const found: ProcessInfo[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}
