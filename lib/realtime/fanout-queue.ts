import type { LifecycleEvent } from "../core/events.ts";
import type { ConnectionRange } from "./connection-ranges.ts";

/**
 * One share of one event's delivery: the event itself (record and previous state: the worker
 * checks permission and filter per subscriber, as the stream function did), the topic and the
 * range of connection ids whose subscribers it reaches, and the stream record's sequence number.
 */
export interface ShareMessage {
  event: LifecycleEvent;
  topic: string;
  range: ConnectionRange;
  sequence?: string;
  /** When the event was written (epoch ms, the stream record's creation time): the delivery's age is counted from it. */
  writtenAt?: number;
}

/** A message as a FIFO queue takes it. */
export interface QueuedMessage {
  /** Every event of a topic share goes through one group: its subscribers see them in stream order. */
  groupId: string;
  /** The same share of the same stream record always has the same id: a re-sent one is dropped. */
  deduplicationId: string;
  body: string;
}

/**
 * Where the stream function hands delivery over: SQS in AWS (sqs-queue.ts), in-process under
 * `npm start` and in tests (local-queue.ts), both feeding the same worker (fanout-worker.ts).
 */
export interface FanoutQueue {
  send(messages: QueuedMessage[]): Promise<void>;
  /** In-process only: resolves once every message sent so far has been worked off. */
  settled?(): Promise<void>;
}

export function encodeShare(message: ShareMessage): string {
  return JSON.stringify(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The body of a queued message, refused (thrown) when it is not one this service wrote. */
export function decodeShare(body: string): ShareMessage {
  const value: unknown = JSON.parse(body);
  if (!isRecord(value) || !isRecord(value.event) || typeof value.topic !== "string" || !isRecord(value.range)) throw new Error("not a fan-out share message");
  const { index, of } = value.range;
  if (typeof index !== "number" || typeof of !== "number" || index < 0 || index >= of) throw new Error("fan-out share message with a bad range");
  const event = value.event as unknown as LifecycleEvent;
  if (typeof event.model !== "string" || typeof event.name !== "string" || !isRecord(event.record) || !isRecord(event.key))
    throw new Error("fan-out share message without an event");
  return {
    event,
    topic: value.topic,
    range: { index, of },
    ...(typeof value.sequence === "string" ? { sequence: value.sequence } : {}),
    ...(typeof value.writtenAt === "number" && Number.isFinite(value.writtenAt) ? { writtenAt: value.writtenAt } : {}),
  };
}
