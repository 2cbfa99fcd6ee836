import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { errorFields, log } from "../core/log.ts";
import { emptyReport, type DeliveryReport } from "./delivery-report.ts";
import { decodeShare } from "./fanout-queue.ts";
import type { Realtime } from "./realtime.ts";
import type { SubscriptionRow } from "./store.ts";
import { placeOf } from "./topic-packs.ts";

export type WorkerParts = Pick<Realtime, "fanout" | "store">;

/** Pages of the topic index, where no packs are kept (the in-memory store): as the stream function reads it. */
const SIZES = { first: 100, largest: 200 };

export type WorkerReport = DeliveryReport;

/**
 * A batch of share messages from the fan-out queue. Messages of different groups run together;
 * those of one group (one topic share) run in the order received, and once one fails the rest of
 * its group are reported failed too, so SQS hands them back in order and no subscriber sees a
 * later event before an earlier one (`ReportBatchItemFailures` on a FIFO queue).
 */
export async function deliverShares(parts: WorkerParts, event: SQSEvent): Promise<{ response: SQSBatchResponse; report: WorkerReport }> {
  const report: WorkerReport = emptyReport();
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId ?? record.messageId;
    const members = groups.get(group);
    if (members) members.push(record);
    else groups.set(group, [record]);
  }
  const failed: string[] = [];
  await Promise.all(
    [...groups.values()].map(async (records) => {
      for (const [at, record] of records.entries()) {
        try {
          const share = decodeShare(record.body);
          // Read afresh for every message: what a share holds does not depend on which instance ran it before.
          const held = new Map<string, SubscriptionRow[]>();
          const rows = remembering(parts.store.subscriptionShare(share.topic, share.range, SIZES), held);
          const packs = parts.store.packs;
          const forget = packs
            ? (connectionId: string) =>
                Promise.all((held.get(connectionId) ?? []).map((row) => packs.remove(share.topic, connectionId, row.id, placeOf(row)))).then(() => undefined)
            : undefined;
          const delivered = await parts.fanout.deliverTo(share.event, rows, forget, share.writtenAt);
          addReport(report, delivered);
        } catch (error) {
          log.error("fan-out share not delivered: the queue retries it", { messageId: record.messageId, ...errorFields(error) });
          failed.push(...records.slice(at).map((r) => r.messageId));
          return;
        }
      }
    }),
  );
  return { response: { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) }, report };
}

/** The rows as read, noting each connection's (a gone connection's entries are named by their ids, found in the items they were read from). */
async function* remembering(pages: AsyncIterable<SubscriptionRow[]>, held: Map<string, SubscriptionRow[]>): AsyncIterable<SubscriptionRow[]> {
  for await (const page of pages) {
    for (const row of page) {
      const rows = held.get(row.connectionId);
      if (rows) rows.push(row);
      else held.set(row.connectionId, [row]);
    }
    yield page;
  }
}

/** Adds a share's figures to the batch's: counts add up, the age is the oldest. */
function addReport(total: DeliveryReport, share: DeliveryReport): void {
  for (const field of Object.keys(share) as (keyof DeliveryReport)[])
    total[field] = field === "ageMs" ? Math.max(total[field], share[field]) : total[field] + share[field];
}
