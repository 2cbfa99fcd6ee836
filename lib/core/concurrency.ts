/**
 * Bounded concurrency, shared by the realtime fan-out and the v3 migration: how many calls may be
 * in flight at once, so a burst of work does not become a burst of requests to DynamoDB or API
 * Gateway.
 */

/**
 * Runs `work` over `items` with at most `limit` calls in flight; resolves when all have settled.
 * `work` must not throw (each caller decides what a failure means for its item).
 */
export async function forEachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export type Limiter = <T>(work: () => Promise<T>) => Promise<T>;

/** At most `limit` calls of the returned function's work in flight at once, across callers. */
export function limiter(limit: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    while (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
