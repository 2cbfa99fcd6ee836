import { MessageType } from "graphql-ws";
import type { Realtime } from "../../lib/realtime/realtime.ts";

export const ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/bench";
export const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key post { slug status title } } }`;

/**
 * Filters of the mixed fan-out: three match a published post by `bench`, one does not (its
 * subscribers are looked up and evaluated, never posted to).
 */
export const FILTERS = [`status = 'published'`, `author = 'bench'`, `status = 'published' AND author = 'bench'`, `status = 'draft'`];
export const MATCHING_FILTERS = 3;

export interface SubscribeOptions {
  batch?: number;
  /** The filter of subscriber i (one filter for all by default). */
  query?: (i: number) => string;
  /** The signed-in user of subscriber i (the local test-user seam), anonymous by default. */
  user?: (i: number) => string | undefined;
}

/** Subscribers as API Gateway would bring them: $connect, connection_init, subscribe, in batches. */
export async function subscribe(realtime: Realtime, count: number, options: SubscribeOptions = {}): Promise<void> {
  const batch = options.batch ?? 200;
  for (let from = 0; from < count; from += batch) {
    const ids = Array.from({ length: Math.min(batch, count - from) }, (_, i) => from + i);
    await Promise.all(
      ids.map(async (i) => {
        const connectionId = `c${i}`;
        const user = options.user?.(i);
        const filter = options.query?.(i);
        const query = filter === undefined ? PUBLISHED : `subscription { Posts(query: ${JSON.stringify(filter)}) { type key post { slug status title } } }`;
        // The client sends its frames as soon as it is connected: they arrive at the connection's
        // own time, however long the store took to record the handshake (DynamoDB Local's JVM warming up).
        const connectedAt = Date.now();
        const frame = (message: unknown) =>
          realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify(message), receivedAt: connectedAt, requestId: connectionId });
        const headers: Record<string, string> = { "sec-websocket-protocol": "graphql-transport-ws", ...(user ? { "x-test-user": user } : {}) };
        await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt, headers, cookies: [] });
        await frame({ type: MessageType.ConnectionInit });
        await frame({ id: "s", type: MessageType.Subscribe, payload: { query } });
      }),
    );
  }
}
