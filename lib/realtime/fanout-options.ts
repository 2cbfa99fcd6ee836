import { positiveIntegerOptions } from "./options.ts";

/** Tunables of sharded fan-out (fan-out queue, workers); each has an environment variable. */
export interface FanoutOptions {
  /** A topic is split into shares of at most this many subscriptions (while `maxShares` allows). */
  subscribersPerShare: number;
  /** The most shares, i.e. parallel worker invocations, one event of one topic is split into (a power of two, at most 64). */
  maxShares: number;
  /** Delivery attempts of one message before it goes to the dead-letter queue (the template's maxReceiveCount). */
  maxReceives: number;
  /** Worker invocations at once (the event source's maximum concurrency; the in-process queue's workers). */
  workers: number;
}

export const DEFAULT_FANOUT_OPTIONS: FanoutOptions = {
  subscribersPerShare: 1_000,
  maxShares: 64,
  maxReceives: 3,
  workers: 100,
};

const VARIABLES: Record<keyof FanoutOptions, string> = {
  subscribersPerShare: "WS_FANOUT_SHARE_SIZE",
  maxShares: "WS_FANOUT_MAX_SHARES",
  maxReceives: "WS_FANOUT_MAX_RECEIVES",
  workers: "WS_FANOUT_WORKERS",
};

/** Defaults overridden by positive integers from the environment; anything else is refused by name. */
export function fanoutOptions(env: NodeJS.ProcessEnv = process.env): FanoutOptions {
  return positiveIntegerOptions(DEFAULT_FANOUT_OPTIONS, VARIABLES, env);
}
