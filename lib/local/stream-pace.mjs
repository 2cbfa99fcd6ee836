// @ts-check
// How often `serverless offline` reads the models' streams in DynamoDB Local. Read every 100 ms,
// the six streams cost a quarter of a core for as long as `npm start` runs, even when nothing is
// written (measured: 7.4 CPU-s of DynamoDB Local and offline per idle 30 s). Once the streams
// have been quiet for a while, a read waits up to IDLE_WAIT_MS first; any handler offline runs
// (an HTTP request, a WebSocket message, a stream batch) wakes every waiting read at once, since
// a handler is what writes. So a write through the API still reaches subscribers within one
// read interval, and a write from outside (a script, the CLI, a test writing to the table) within
// about a second, about as soon as Lambda's own poll of a stream in AWS delivers it.
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.

/** Streams that gave records, or were woken, this recently are read at the fast interval. */
export const ACTIVE_MS = 2_000;
/** Longest a read waits while the streams are quiet. */
export const IDLE_WAIT_MS = 900;

/** @typedef {{ active: number, idleWait: number, now: () => number }} PaceOptions */

export class StreamPace {
  /** @param {Partial<PaceOptions>} [options] */
  constructor(options = {}) {
    this.active = options.active ?? ACTIVE_MS;
    this.idleWait = options.idleWait ?? IDLE_WAIT_MS;
    this.now = options.now ?? Date.now;
    /** When a stream last gave records or a handler last ran; never, at first. */
    this.lastActivity = -Infinity;
    /** @type {Set<() => void>} the reads waiting now */
    this.waiting = new Set();
  }

  /** Something may have been written: every waiting read goes ahead, and the next ones do not wait. */
  wake() {
    this.lastActivity = this.now();
    for (const release of [...this.waiting]) release();
  }

  /** @param {number} records how many records a read gave */
  read(records) {
    if (records > 0) this.lastActivity = this.now();
  }

  /**
   * Resolves when a read may be sent: at once while the streams are active, otherwise after the
   * idle wait or the next wake, whichever comes first. The timer never holds the process open.
   * @returns {Promise<void>}
   */
  beforeRead() {
    if (this.now() - this.lastActivity < this.active) return Promise.resolve();
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.waiting.delete(release);
        resolve();
      };
      const timer = setTimeout(release, this.idleWait);
      timer.unref();
      this.waiting.add(release);
    });
  }
}

/** The pace of this process's `serverless offline`: the streams patch reads by it, the handler patch wakes it. */
export const streamPace = new StreamPace();
