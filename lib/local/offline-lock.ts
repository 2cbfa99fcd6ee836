import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * `npm start` binds fixed ports, so test files that run it (in parallel vitest workers) take
 * turns. mkdir is atomic: whoever creates the directory holds the lock. Same path as
 * test/support/offline.ts uses.
 */
export const OFFLINE_LOCK = join(tmpdir(), "modelrest-offline.lock");
const OWNER = join(OFFLINE_LOCK, "pid");

/** A lock whose recorded owner is dead was left by a killed run; one without an owner file is not judged. */
async function ownerIsGone(): Promise<boolean> {
  const pid = Number(await readFile(OWNER, "utf8").catch(() => ""));
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export async function acquireOfflineLock(timeoutMs: number): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(OFFLINE_LOCK);
      await writeFile(OWNER, String(process.pid));
      return () => rm(OFFLINE_LOCK, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (await ownerIsGone()) {
        await rm(OFFLINE_LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`${OFFLINE_LOCK} still held after ${timeoutMs} ms (left by a killed run? remove it)`, {
          cause: error,
        });
      }
      await sleep(500);
    }
  }
}
