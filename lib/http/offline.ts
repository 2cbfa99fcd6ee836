/**
 * Where `serverless offline` serves the API locally: the functions read it at run time (the
 * WebSocket face posts to the offline management API), and lib/local starts offline on it.
 */
export const LOCAL_HOST = "127.0.0.1";

export type OfflinePortKind = "http" | "websocket" | "lambda";

/** The ports URLs in docs, tests and clients name; serverless.yml says the same. */
export const DEFAULT_OFFLINE_PORTS = { http: 3000, websocket: 3001, lambda: 3002 } as const;

/**
 * The environment variables that move them (`npm start --http-port` and the like set them, and
 * pass the WebSocket one to the functions: docs/running-locally.md, "Ports").
 */
export const OFFLINE_PORT_ENV = { http: "OFFLINE_HTTP_PORT", websocket: "OFFLINE_WEBSOCKET_PORT", lambda: "OFFLINE_LAMBDA_PORT" } as const;

/** The port offline serves `kind` on: its variable's value, or the default when unset or not a port. */
export function offlinePort(kind: OfflinePortKind, env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[OFFLINE_PORT_ENV[kind]]);
  return Number.isInteger(value) && value >= 1 && value <= 65_535 ? value : DEFAULT_OFFLINE_PORTS[kind];
}

/** The ports of this process's offline, read from the environment each time (npm start sets it from its flags). */
export const OFFLINE_PORTS: { readonly http: number; readonly websocket: number; readonly lambda: number } = {
  get http() {
    return offlinePort("http");
  },
  get websocket() {
    return offlinePort("websocket");
  },
  get lambda() {
    return offlinePort("lambda");
  },
};
