import { SendMessageBatchCommand, SQSClient, type SendMessageBatchRequestEntry } from "@aws-sdk/client-sqs";
import { traceAwsCalls } from "../store/aws-tracing.ts";
import type { FanoutQueue, QueuedMessage } from "./fanout-queue.ts";

/** SendMessageBatch takes at most 10 entries and 256 KiB in all. */
const ENTRIES_PER_CALL = 10;
const BYTES_PER_CALL = 256 * 1024;
/** Batches sent at once: a 64-share event is seven calls, sent together. */
const CALLS_IN_FLIGHT = 8;

/**
 * The fan-out queue in AWS: a FIFO queue (`FANOUT_QUEUE_URL`), written with SendMessageBatch.
 * Entries SQS refuses are sent once more; still refused, the call fails and so does the stream
 * record, whose retry re-sends every share under the same deduplication ids (dropped by SQS as
 * duplicates for five minutes).
 */
export class SqsFanoutQueue implements FanoutQueue {
  private readonly client: SQSClient;

  constructor(
    private readonly queueUrl: string,
    client?: SQSClient,
  ) {
    this.client = client ?? new SQSClient({ region: process.env.AWS_REGION ?? "us-east-1" });
    if (!client) traceAwsCalls(this.client);
  }

  async send(messages: QueuedMessage[]): Promise<void> {
    const batches = packed(messages);
    for (let at = 0; at < batches.length; at += CALLS_IN_FLIGHT) {
      await Promise.all(batches.slice(at, at + CALLS_IN_FLIGHT).map((batch) => this.sendBatch(batch, 2)));
    }
  }

  private async sendBatch(batch: QueuedMessage[], attempts: number): Promise<void> {
    const entries: SendMessageBatchRequestEntry[] = batch.map((m, i) => ({
      Id: String(i),
      MessageBody: m.body,
      MessageGroupId: m.groupId,
      MessageDeduplicationId: m.deduplicationId,
    }));
    const result = await this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
    const refused = (result.Failed ?? []).map((f) => batch[Number(f.Id)]).filter((m): m is QueuedMessage => m !== undefined);
    if (refused.length === 0) return;
    if (attempts <= 1) throw new Error(`SQS refused ${refused.length} fan-out messages: ${(result.Failed ?? []).map((f) => f.Code).join(", ")}`);
    await this.sendBatch(refused, attempts - 1);
  }
}

/** Messages in calls of at most 10 entries and 256 KiB, in order. */
export function packed(messages: QueuedMessage[]): QueuedMessage[][] {
  const batches: QueuedMessage[][] = [];
  let current: QueuedMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.body);
    if (current.length > 0 && (current.length >= ENTRIES_PER_CALL || bytes + size > BYTES_PER_CALL)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
