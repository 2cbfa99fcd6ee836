export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Settles with `onTimeout()` when `work` has not settled within `ms`; `work` keeps running unobserved. */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Items produced while others are already being worked on: `take` waits for the next item, and
 * gives undefined once the outbox is closed and empty.
 */
export class Outbox<T> {
  private readonly items: T[] = [];
  private head = 0;
  private readonly takers: ((item: T | undefined) => void)[] = [];
  private closed = false;

  push(item: T): void {
    const taker = this.takers.shift();
    if (taker) taker(item);
    else this.items.push(item);
  }

  close(): void {
    this.closed = true;
    for (const taker of this.takers.splice(0)) taker(undefined);
  }

  take(): Promise<T | undefined> {
    if (this.head < this.items.length) {
      return Promise.resolve(this.items[this.head++] as T);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.takers.push(resolve));
  }
}

/** `forEachBounded` over an outbox still being filled: `limit` workers, each taking the next item. */
export async function drainBounded<T>(outbox: Outbox<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const worker = async (): Promise<void> => {
    for (let item = await outbox.take(); item !== undefined; item = await outbox.take()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
}
