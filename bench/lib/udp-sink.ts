import { createSocket } from "node:dgram";

export interface UdpSink {
  /** `127.0.0.1:<port>`, as AWS_XRAY_DAEMON_ADDRESS names the X-Ray daemon. */
  address: string;
  /** Datagrams received so far. */
  received(): number;
  close(): Promise<void>;
}

/** A loopback UDP socket standing where Lambda's X-Ray daemon listens: it takes and counts what it is sent. */
export async function startUdpSink(): Promise<UdpSink> {
  const socket = createSocket("udp4");
  let count = 0;
  socket.on("message", () => count++);
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    received: () => count,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
