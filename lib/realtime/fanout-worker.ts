import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { errorFields, log } from "../core/log.ts";
import { emptyReport, type DeliveryReport, type Fanout } from "./fanout.ts";
import { decodeShare } from "./fanout-queue.ts";
import type { SubscriptionRow } from "./store.ts";
import type { TopicShares } from "./topic-shares.ts";

export interface WorkerParts {
  fanout: Fanout;
  shares: TopicShares;
}

export interface WorkerReport extends DeliveryReport {
  /** Shares whose rows were read (the others reused the rows kept from an earlier event). */
  sharesRead: number;
}

/** Rows per page handed to the fan-out: its posts start while later pages are grouped. */
const PAGE = 200;

function pagesOf(rows: SubscriptionRow[]): SubscriptionRow[][] {
  const pages: SubscriptionRow[][] = [];
  for (let at = 0; at < rows.length; at += PAGE) pages.push(rows.slice(at, at + PAGE));
  return pages;
}

/**
 * A batch of share messages from the fan-out queue. Messages of different groups run together;
 * those of one group (one topic share) run in the order received, and once one fails the rest of
 * its group are reported failed too, so SQS hands them back in order and no subscriber sees a
 * later event before an earlier one (`ReportBatchItemFailures` on a FIFO queue).
 */
export async function deliverShares(parts: WorkerParts, event: SQSEvent): Promise<{ response: SQSBatchResponse; report: WorkerReport }> {
  const report: WorkerReport = { ...emptyReport(), sharesRead: 0 };
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
          const { rows, read } = await parts.shares.rows(share.topic, share.range);
          if (read) report.sharesRead++;
          const delivered = await parts.fanout.deliverTo(share.event, pagesOf(rows));
          for (const field of Object.keys(delivered) as (keyof DeliveryReport)[]) report[field] += delivered[field];
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
