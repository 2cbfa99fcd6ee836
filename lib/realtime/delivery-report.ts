import { countEvent } from "../core/metrics.ts";

// An event's deliveries, accounted (issue 54): what Fanout fills in, the stream and fan-out
// handlers count in their metrics, and the late log reads.

export function emptyReport(): DeliveryReport {
  return { subscriptions: 0, executions: 0, planned: 0, delivered: 0, gone: 0, goneFrames: 0, failed: 0, timedOut: 0, retries: 0, ageMs: 0 };
}

/**
 * One event's deliveries, accounted: every `next` frame planned is delivered or dropped for a
 * reason (`goneFrames`, `failed`, `timedOut`), so planned = delivered + goneFrames + failed +
 * timedOut. `retries` counts throttled posts tried again.
 */
export interface DeliveryReport {
  subscriptions: number;
  /** GraphQL executions: one per value shown to a document that reads nothing else, else one per group. */
  executions: number;
  /** `next` frames to send: subscribers allowed to see the event (after the read check and filter). */
  planned: number;
  delivered: number;
  /** Connections found gone (410): each is removed with its subscriptions. */
  gone: number;
  /** Frames dropped because their connection was gone. */
  goneFrames: number;
  /** Frames dropped because the post failed otherwise (or was throttled past its attempts, or its payload failed). */
  failed: number;
  /** Frames dropped because the post passed its timeout. */
  timedOut: number;
  retries: number;
  /** From the write (the stream record's creation time) to the last post's end; 0 when unknown. */
  ageMs: number;
}

/** An invocation's deliveries in its metrics: planned, sent, retried, dropped, and the oldest's age. */
export function countDeliveries(report: DeliveryReport): void {
  countEvent("DeliveriesPlanned", report.planned);
  countEvent("Deliveries", report.delivered);
  countEvent("DeliveryRetries", report.retries);
  countEvent("DeliveriesDropped", dropped(report));
  countEvent("StaleConnections", report.gone);
  if (report.ageMs > 0) countEvent("DeliveryAge", report.ageMs);
}

/** The report's reasons for frames not delivered, together. */
export function dropped(report: DeliveryReport): number {
  return report.goneFrames + report.failed + report.timedOut;
}

/**
 * A delivery this long after its write is logged as late (warn, with its event and figures). The
 * write time is the stream record's, which AWS rounds down to the second: a delivery may be
 * reported up to a second older than it is.
 */
export const LATE_DELIVERY_MS = 5_000;
