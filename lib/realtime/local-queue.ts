import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { log } from "../core/log.ts";
import type { FanoutQueue, QueuedMessage } from "./fanout-queue.ts";
import { FANOUT_VISIBILITY_TIMEOUT_S } from "./serverless.ts";

export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse>;

interface Pending {
  message: QueuedMessage;
  messageId: string;
  receives: number;
}

/** How long a deduplication id is remembered (SQS FIFO: five minutes). */
const DEDUPLICATION_MS = 5 * 60 * 1000;

/**
 * The fan-out queue run in-process (`npm start`, tests, the bench), with the FIFO queue's
 * semantics the worker relies on: messages of one group are handed over one at a time, in the
 * order sent, a failed one again once its visibility timeout has passed (up to `maxReceives`
 * receives, then it is dead-lettered) before the next, its group waiting meanwhile; groups run in parallel, at most `workers` at once (the worker's concurrency); a
 * deduplication id seen in the last five minutes is dropped. Each hand-over is one invocation of
 * the consumer with one record, as the template's batch size of 1.
 */
export class InProcessFanoutQueue implements FanoutQueue {
  private readonly groups = new Map<string, Pending[]>();
  private readonly active = new Set<string>();
  /** Groups whose first message failed and is invisible until its visibility timeout passes. */
  private readonly invisible = new Set<string>();
  private readonly seen = new Map<string, number>();
  private consumer: QueueConsumer | undefined;
  private idle: (() => void)[] = [];
  private nextId = 0;
  invocations = 0;
  maxConcurrent = 0;
  readonly deadLetters: QueuedMessage[] = [];

  /** `visibilityTimeoutMs`: the template's queue's unless given (tests shorten it). */
  constructor(private readonly options: { workers: number; maxReceives: number; visibilityTimeoutMs?: number; now?: () => number }) {}

  attach(consumer: QueueConsumer): void {
    this.consumer = consumer;
  }

  async send(messages: QueuedMessage[]): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    for (const [id, at] of this.seen) if (now - at > DEDUPLICATION_MS) this.seen.delete(id);
    for (const message of messages) {
      if (this.seen.has(message.deduplicationId)) continue;
      this.seen.set(message.deduplicationId, now);
      const queue = this.groups.get(message.groupId) ?? [];
      queue.push({ message, messageId: `local-${++this.nextId}`, receives: 0 });
      this.groups.set(message.groupId, queue);
    }
    // As SQS: the send returns once the messages are queued; workers pick them up afterwards.
    setImmediate(() => this.pump());
  }

  settled(): Promise<void> {
    if (this.groups.size === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    for (const [groupId, queue] of this.groups) {
      if (this.active.size >= this.options.workers) return;
      if (this.active.has(groupId) || this.invisible.has(groupId) || queue.length === 0) continue;
      this.active.add(groupId);
      this.maxConcurrent = Math.max(this.maxConcurrent, this.active.size);
      void this.run(groupId, queue[0] as Pending);
    }
    if (this.active.size === 0 && this.groups.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private async run(groupId: string, pending: Pending): Promise<void> {
    pending.receives++;
    this.invocations++;
    let ok = false;
    try {
      if (!this.consumer) throw new Error("no fan-out worker attached");
      const response = await this.consumer({ Records: [record(pending)] });
      ok = response.batchItemFailures.length === 0;
    } catch (error) {
      log.error("fan-out worker failed", { groupId, error: String(error) });
    }
    const queue = this.groups.get(groupId) ?? [];
    if (ok || pending.receives >= this.options.maxReceives) {
      if (!ok) {
        log.error("fan-out message dead-lettered", { groupId, receives: pending.receives });
        this.deadLetters.push(pending.message);
      }
      queue.shift();
      if (queue.length === 0) this.groups.delete(groupId);
    } else {
      // As SQS: a message handed back is received again once its visibility timeout has passed, not at once.
      this.invisible.add(groupId);
      setTimeout(
        () => {
          this.invisible.delete(groupId);
          this.pump();
        },
        this.options.visibilityTimeoutMs ?? FANOUT_VISIBILITY_TIMEOUT_S * 1000,
      );
    }
    this.active.delete(groupId);
    this.pump();
  }
}

function record(pending: Pending): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: pending.messageId,
    receiptHandle: pending.messageId,
    body: pending.message.body,
    attributes: {
      ApproximateReceiveCount: String(pending.receives),
      SentTimestamp: now,
      SenderId: "local",
      ApproximateFirstReceiveTimestamp: now,
      MessageGroupId: pending.message.groupId,
      MessageDeduplicationId: pending.message.deduplicationId,
    },
    messageAttributes: {},
    md5OfBody: "",
    eventSource: "aws:sqs",
    eventSourceARN: "arn:aws:sqs:local:000000000000:fanout.fifo",
    awsRegion: "local",
  };
}
