import type { LifecycleEvent } from "../core/events.ts";
import { emptyReport, type DeliveryReport } from "./delivery-report.ts";
import type { Realtime } from "./realtime.ts";

/**
 * One stream record's event: planned into share messages for the fan-out workers when a queue is
 * configured (the report then counts the subscriptions the markers know of, delivered by the
 * workers), else delivered here. An in-process queue (npm start) is worked off before the next
 * record, as the stream handles records one at a time. `writtenAt` (epoch ms) is when the event was
 * written, which each delivery's age is counted from.
 */
export async function deliverStreamEvent(realtime: Realtime, event: LifecycleEvent, sequence: string | undefined, writtenAt?: number): Promise<DeliveryReport> {
  const planned = await realtime.planner?.plan(event, sequence, writtenAt);
  if (!realtime.planner || !planned) return realtime.fanout.deliver(event, writtenAt);
  await realtime.planner.settled();
  return { ...emptyReport(), subscriptions: planned.subscriptions ?? 0 };
}
