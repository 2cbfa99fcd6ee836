/**
 * Runs items `concurrency` at a time, at most `perTarget` at once for one target. serverless
 * offline starts a worker thread (and loads the function's bundle again, ~1 s on a busy machine)
 * for each invocation that finds every instance of its function busy: unbounded, 24 requests in
 * flight grew to hundreds of cold starts, which is where most of the fuzzer's time went.
 * Items keep their order, except that one whose target is busy waits for a free slot.
 */
export async function runScheduled<T>(options: {
  items: readonly T[];
  target: (item: T) => string;
  concurrency: number;
  perTarget: number;
  run: (item: T) => Promise<void>;
}): Promise<void> {
  const { items, target, concurrency, perTarget, run } = options;
  const inFlight = new Map<string, number>();
  const waiting = new Map<string, T[]>();
  let cursor = 0;
  let wake: (() => void)[] = [];
  const free = (key: string): boolean => (inFlight.get(key) ?? 0) < perTarget;

  const take = (): T | undefined => {
    for (const [key, queue] of waiting) {
      if (!free(key)) continue;
      const item = queue.shift();
      if (queue.length === 0) waiting.delete(key);
      return item;
    }
    while (cursor < items.length) {
      const item = items[cursor++] as T;
      const key = target(item);
      if (free(key)) return item;
      const queue = waiting.get(key);
      if (queue) queue.push(item);
      else waiting.set(key, [item]);
    }
    return undefined;
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      const item = take();
      if (item === undefined) {
        if (cursor >= items.length && waiting.size === 0) return;
        // Everything left waits on busy targets: sleep until one of them frees a slot.
        await new Promise<void>((resolve) => wake.push(resolve));
        continue;
      }
      const key = target(item);
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      try {
        await run(item);
      } finally {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
        const sleepers = wake;
        wake = [];
        for (const resolve of sleepers) resolve();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
