/**
 * Sends segment documents to the X-Ray daemon over UDP, as the X-Ray SDKs do: each datagram is
 * the header line `{"format":"json","version":1}` then one document. Lambda runs the daemon and
 * names it in `AWS_XRAY_DAEMON_ADDRESS`. Tracing must never fail or slow a request: nothing here
 * throws, a send is not awaited, and its errors are dropped.
 */
import type { Socket } from "node:dgram";

const HEADER = '{"format":"json","version":1}\n';
const DEFAULT_ADDRESS = "127.0.0.1:2000";

interface Address {
  text: string;
  host: string;
  port: number;
}

/** `host:port`, or the daemon's two-protocol form `tcp:host:port udp:host:port` (the UDP one). */
export function daemonAddressOf(text: string): Address {
  const udp =
    text
      .split(/\s+/)
      .find((part) => part.startsWith("udp:"))
      ?.slice(4) ?? text.trim();
  const colon = udp.lastIndexOf(":");
  const host = udp.slice(0, colon);
  const port = Number(udp.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) return { text, host: "127.0.0.1", port: 2000 };
  return { text, host, port };
}

/**
 * One socket per process, opened at the first traced call; unref'd so it never keeps Node alive.
 * node:dgram itself is loaded then too: every function carries this module, and a function that is
 * not traced should not load a UDP stack at its cold start.
 */
let socket: Socket | undefined;
let opening: Promise<Socket | undefined> | undefined;
let address: Address = daemonAddressOf(DEFAULT_ADDRESS);

function open(host: string): Promise<Socket | undefined> {
  return import("node:dgram").then(
    ({ createSocket }) => {
      const opened = createSocket(host.includes(":") ? "udp6" : "udp4");
      opened.on("error", () => {});
      opened.unref();
      socket = opened;
      return opened;
    },
    () => undefined,
  );
}

const dropped = (): void => {};

function sendOn(opened: Socket | undefined, text: string): void {
  try {
    opened?.send(text, address.port, address.host, dropped);
  } catch {
    // A closed socket: the trace loses a node, the request goes on.
  }
}

/** Sends one segment document (a subsegment, here) to the daemon; never throws. */
export function sendToDaemon(document: object): void {
  try {
    const text = process.env.AWS_XRAY_DAEMON_ADDRESS || DEFAULT_ADDRESS;
    if (text !== address.text) address = daemonAddressOf(text);
    const packet = HEADER + JSON.stringify(document);
    if (socket) sendOn(socket, packet);
    else void (opening ??= open(address.host)).then((opened) => sendOn(opened, packet));
  } catch {
    // An unserialisable document: the trace loses a node, the request goes on.
  }
}
