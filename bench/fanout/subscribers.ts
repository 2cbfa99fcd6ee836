import { MessageType } from "graphql-ws";
import type { Realtime } from "../../lib/realtime/realtime.ts";

export const ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/bench";
export const PUBLISHED = `subscription { Posts(query: "status = 'published'") { type key post { slug status title } } }`;

/** Subscribers as API Gateway would bring them: $connect, connection_init, subscribe, in batches. */
export async function subscribe(realtime: Realtime, count: number, batch = 200): Promise<void> {
  for (let from = 0; from < count; from += batch) {
    const ids = Array.from({ length: Math.min(batch, count - from) }, (_, i) => `c${from + i}`);
    await Promise.all(
      ids.map(async (connectionId) => {
        const frame = (message: unknown) => realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify(message), receivedAt: Date.now(), requestId: connectionId });
        await realtime.protocol.connect({ connectionId, endpoint: ENDPOINT, connectedAt: Date.now(), headers: { "sec-websocket-protocol": "graphql-transport-ws" }, cookies: [] });
        await frame({ type: MessageType.ConnectionInit });
        await frame({ id: "s", type: MessageType.Subscribe, payload: { query: PUBLISHED } });
      }),
    );
  }
}
