import { setTimeout as sleep } from "node:timers/promises";

/**
 * Asks `probe` every 100 ms until `done` holds of its answer, which it returns; past `timeout` ms,
 * throws naming `what` and the last answer. A condition, not a clock: the cap is for a busy host.
 */
export async function waitFor<T>(probe: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeout: number): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}
