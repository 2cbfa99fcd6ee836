/**
 * Where `serverless offline` serves the API locally: the functions read it at run time (the
 * WebSocket face posts to the offline management API), and lib/local starts offline on it.
 */
export const LOCAL_HOST = "127.0.0.1";

/** Fixed so that URLs in docs, tests and clients never change; serverless.yml says the same. */
export const OFFLINE_PORTS = { http: 3000, websocket: 3001, lambda: 3002 } as const;
