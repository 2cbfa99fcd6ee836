import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { expect } from "vitest";
import { waitFor } from "./wait.ts";

/** An X-Ray subsegment document as lib/store/aws-subsegment.ts writes it. */
export interface Subsegment {
  name: string;
  id: string;
  trace_id: string;
  parent_id: string;
  type: string;
  namespace: string;
  start_time: number;
  end_time: number;
  error?: boolean;
  throttle?: boolean;
  fault?: boolean;
  cause?: { exceptions: { id: string; type: string; remote: boolean; message?: string }[] };
  aws: { operation: string; region?: string; request_id?: string; table_name?: string; retries?: number };
  http?: { response: { status: number } };
}

/** A trace id as X-Ray makes them: version 1, epoch seconds in hex, 96 random bits. */
export const newTraceRoot = (): string => `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString("hex")}`;

/** One datagram: the daemon's header line, then one segment document. */
export function parsePacket(packet: string | undefined): Subsegment {
  if (packet === undefined) throw new Error("no datagram");
  const newline = packet.indexOf("\n");
  expect(packet.slice(0, newline)).toBe('{"format":"json","version":1}');
  return JSON.parse(packet.slice(newline + 1)) as Subsegment;
}

/**
 * A UDP socket on loopback standing in for the X-Ray daemon, named in `AWS_XRAY_DAEMON_ADDRESS`
 * as Lambda names its own. `invocation` runs work under a sampled trace header of its own (a new
 * parent) and returns the datagrams sent for it: a late one of an earlier test names another parent.
 */
export async function startXrayDaemon(root: string) {
  const received: string[] = [];
  const socket = createSocket("udp4");
  socket.on("message", (message) => received.push(message.toString("utf8")));
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const before = process.env.AWS_XRAY_DAEMON_ADDRESS;
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${socket.address().port}`;
  return {
    async invocation(count: number, work: (sampled: string, parent: string) => Promise<unknown>): Promise<string[]> {
      const parent = randomBytes(8).toString("hex");
      const sampled = `Root=${root};Parent=${parent};Sampled=1`;
      process.env._X_AMZN_TRACE_ID = sampled;
      await work(sampled, parent);
      const mine = () => received.filter((packet) => packet.includes(`"parent_id":"${parent}"`));
      await waitFor(
        () => mine().length,
        (n) => n >= count,
        `${count} subsegment(s) at the daemon`,
        10_000,
      );
      return mine();
    },
    close(): void {
      socket.close();
      if (before === undefined) delete process.env.AWS_XRAY_DAEMON_ADDRESS;
      else process.env.AWS_XRAY_DAEMON_ADDRESS = before;
    },
  };
}
