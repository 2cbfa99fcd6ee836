import { setMaxListeners } from "node:events";

/** One timer and one AbortController for every call started in the same millisecond. */
class Deadline {
  users = 0;
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  readonly passed: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private over = false;

  constructor(
    ms: number,
    private readonly ended: () => void,
  ) {
    // Each of the millisecond's requests listens for the abort (the SDK's HTTP handler does, and
    // removes its listener when the request closes): many listeners here are expected, not a leak.
    setMaxListeners(0, this.signal);
    this.passed = new Promise((resolve) => {
      this.timer = setTimeout(() => {
        this.over = true;
        this.ended();
        this.controller.abort();
        resolve();
      }, ms);
    });
  }

  release(): void {
    if (--this.users > 0 || this.over) return;
    clearTimeout(this.timer);
    this.ended();
  }
}

/**
 * Per-call timeouts of at least `ms`, shared by the calls started within the same millisecond:
 * they pass together, so aborting all of that millisecond's unfinished calls at once is what
 * each call's own timer would have done, for one timer and one AbortSignal instead of one each
 * (a signal costs microseconds to create: a fan-out makes a thousand calls in a burst).
 */
export class Deadlines {
  private readonly open = new Map<number, Deadline>();

  constructor(private readonly ms: number) {}

  /** `work`'s result, or `timedOut` once its deadline passes first (its signal is then aborted). */
  async run<T>(work: (signal: AbortSignal) => Promise<T>, timedOut: T): Promise<T> {
    const at = Math.floor(performance.now());
    let deadline = this.open.get(at);
    if (!deadline) {
      // One millisecond more: a call joining the deadline late in its millisecond still gets `ms`.
      const created: Deadline = new Deadline(this.ms + 1, () => {
        if (this.open.get(at) === created) this.open.delete(at);
      });
      deadline = created;
      this.open.set(at, deadline);
    }
    deadline.users++;
    try {
      return await Promise.race([work(deadline.signal), deadline.passed.then(() => timedOut)]);
    } finally {
      deadline.release();
    }
  }
}
