import { setMaxListeners } from "node:events";
import { UnavailableError } from "../core/errors.ts";
import { currentInvocation } from "../core/invocation.ts";

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

/**
 * Kept, out of a WebSocket invocation's time, for answering a frame whose work failed or ran out of
 * time: the `error` post (one management API attempt) and the log line. Without it a frame whose
 * DynamoDB calls used the whole invocation could not be answered at all, and API Gateway (or
 * offline) would answer for it with a non-protocol `{"message": ...}` once Lambda timed out.
 */
export const FRAME_ANSWER_RESERVE_MS = 2_000;

/** What `withAnswerReserve` throws when the work is still running at the earlier deadline. */
export class OutOfFrameTime extends UnavailableError {
  constructor() {
    super(2, "The request ran out of time, retry shortly");
  }
}

/**
 * `work` with the invocation's deadline moved `reserveMs` earlier, so that each AWS call it makes
 * ends (or is never started) by then; and raced against that earlier deadline, so that whatever
 * else it may wait on, the caller still has `reserveMs` to answer. The deadline is restored after.
 * Without a deadline (no Lambda context: tests, scripts) `work` runs as it is. `work`'s signal is
 * aborted when the earlier deadline passes first: the work goes on (a promise cannot be stopped)
 * but must not write anything after it, since its caller has answered that it failed.
 */
export async function withAnswerReserve<T>(reserveMs: number, work: (abandoned: AbortSignal) => Promise<T>): Promise<T> {
  const invocation = currentInvocation();
  const full = invocation.deadline;
  const abandoned = new AbortController();
  if (!Number.isFinite(full)) return work(abandoned.signal);
  invocation.deadline = full - reserveMs;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        abandoned.abort();
        reject(new OutOfFrameTime());
      },
      Math.max(0, invocation.deadline - performance.now()),
    );
  });
  try {
    return await Promise.race([work(abandoned.signal), late]);
  } finally {
    clearTimeout(timer);
    invocation.deadline = full;
  }
}
