import WebSocket from "ws";

/** How a graphql-transport-ws handshake ended: "connection_ack", another message's type, "closed <code> <reason>", or what failed. */
function handshakeOnce(url: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, "graphql-transport-ws");
    const done = (answer: string): void => {
      clearTimeout(timer);
      socket.terminate();
      resolve(answer);
    };
    const timer = setTimeout(() => done(`no answer in ${timeoutMs / 1000} s`), timeoutMs);
    socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init" })));
    socket.on("message", (data: Buffer) => done((JSON.parse(data.toString("utf8")) as { type?: string }).type ?? data.toString("utf8")));
    socket.on("close", (code, reason) => done(`closed ${code} ${reason.toString("utf8")}`));
    socket.on("error", (error) => done(error.message));
    socket.on("unexpected-response", (_request, response) => done(`upgrade refused ${response.statusCode}`));
  });
}

/**
 * A graphql-transport-ws handshake on offline's WebSocket API (the ws function's $connect, then its
 * $default answering connection_init through the management API), once more if the server closed
 * the first with 4408, as a client with the README's reconnect options would: under offline, a
 * connection opened while the ws function cold-starts (or its bundle rebuilds) can have its
 * connection_init handled before its $connect has stored it.
 */
export async function webSocketHandshake(url: string, timeoutMs = 60_000): Promise<string> {
  const first = await handshakeOnce(url, timeoutMs);
  return first.startsWith("closed 4408") ? handshakeOnce(url, timeoutMs) : first;
}
