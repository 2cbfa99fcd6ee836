/** Tunables of the WebSocket face; every one has an environment variable so a stage can change it. */
export interface RealtimeOptions {
  /** graphql-ws's `connectionInitWaitTimeout` (3 s there too), measured from API Gateway's connect time. */
  initTimeoutMs: number;
  /** API Gateway ends every WebSocket connection after 2 hours. */
  connectionLifetimeMs: number;
  /** A never-initialised row lives this long: API Gateway's idle timeout (10 min) has closed the socket by then. */
  pendingLifetimeMs: number;
  /** Added to every TTL so a row outlives its socket a little, never the other way round. */
  ttlMarginMs: number;
  /** Posts in flight at once during one fan-out. */
  concurrency: number;
  /** One post may take this long before it is abandoned, so a dead connection never holds a slot for long. */
  postTimeoutMs: number;
  /** Attempts per post when API Gateway throttles (the first included). */
  postAttempts: number;
  /** First backoff after throttling; doubled each attempt, with jitter. */
  retryBaseMs: number;
  /** Live subscriptions one connection may hold; one more gets an `error` and is not stored. */
  maxSubscriptionsPerConnection: number;
  /** Characters of a `<Models>(query)` filter; a longer one gets an `error`. */
  maxFilterLength: number;
  /**
   * Bytes of one client message (API Gateway's own cap is 128 KB); a larger subscribe gets an
   * `error`, so that no row near DynamoDB's 400 KB item limit is ever written.
   */
  maxMessageBytes: number;
  /**
   * Open connections one signed-in user may hold (tabs, devices); one more is refused at
   * `connection_init` (4403) and nothing is kept. Anonymous connections are not counted per user.
   */
  maxConnectionsPerUser: number;
}

export const DEFAULT_REALTIME_OPTIONS: RealtimeOptions = {
  initTimeoutMs: 3_000,
  connectionLifetimeMs: 2 * 60 * 60 * 1000,
  pendingLifetimeMs: 10 * 60 * 1000,
  ttlMarginMs: 15 * 60 * 1000,
  concurrency: 50,
  postTimeoutMs: 3_000,
  postAttempts: 4,
  retryBaseMs: 50,
  maxSubscriptionsPerConnection: 25,
  maxFilterLength: 2_000,
  maxMessageBytes: 64 * 1024,
  maxConnectionsPerUser: 10,
};

const VARIABLES: Record<keyof RealtimeOptions, string> = {
  initTimeoutMs: "WS_INIT_TIMEOUT_MS",
  connectionLifetimeMs: "WS_CONNECTION_LIFETIME_MS",
  pendingLifetimeMs: "WS_PENDING_LIFETIME_MS",
  ttlMarginMs: "WS_TTL_MARGIN_MS",
  concurrency: "WS_POST_CONCURRENCY",
  postTimeoutMs: "WS_POST_TIMEOUT_MS",
  postAttempts: "WS_POST_ATTEMPTS",
  retryBaseMs: "WS_RETRY_BASE_MS",
  maxSubscriptionsPerConnection: "WS_MAX_SUBSCRIPTIONS",
  maxFilterLength: "WS_MAX_FILTER_LENGTH",
  maxMessageBytes: "WS_MAX_MESSAGE_BYTES",
  maxConnectionsPerUser: "WS_MAX_CONNECTIONS_PER_USER",
};

/**
 * `base` with each field whose environment variable (`variables`) is set replaced by its value: a
 * positive integer, anything else refused by the variable's name.
 */
export function positiveIntegerOptions<T extends { [K in keyof T]: number }>(base: T, variables: Record<keyof T, string>, env: NodeJS.ProcessEnv): T {
  const options = { ...base };
  for (const [field, name] of Object.entries(variables) as [keyof T, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
    options[field] = value as T[keyof T];
  }
  return options;
}

/** Defaults overridden by positive integers from the environment; anything else is refused by name. */
export function realtimeOptions(env: NodeJS.ProcessEnv = process.env, base: RealtimeOptions = DEFAULT_REALTIME_OPTIONS): RealtimeOptions {
  return positiveIntegerOptions(base, VARIABLES, env);
}
