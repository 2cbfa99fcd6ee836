import { createHash } from "node:crypto";
import type { Application } from "../core/application.ts";
import type { LifecycleEvent } from "../core/events.ts";
import { sharesFor } from "./connection-ranges.ts";
import { encodeShare, type FanoutQueue, type QueuedMessage } from "./fanout-queue.ts";
import type { RealtimeStore } from "./store.ts";
import { modelTopic, recordTopic } from "./topics.ts";

export interface FanoutPlanOptions {
  /** Subscriptions one worker message is planned for (a topic is split until its shares hold no more). */
  subscribersPerShare: number;
  /** The most shares (parallel workers) one topic's event is split into. */
  maxShares: number;
  /** A message larger than this (the event's record and previous state) is delivered by the stream function itself. */
  maxMessageBytes: number;
}

export interface PlanReport {
  /** Subscriptions the topics' markers count (unknown without markers). */
  subscriptions?: number;
  messages: number;
}

const hash = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * How long a topic's marker with subscribers is reused. A marker sets only how many shares an
 * event is split into (every subscriber is in exactly one share at any split), so one a little
 * old costs parallelism, never a delivery; a topic without subscribers is read every time, so its
 * first subscriber is never skipped. A stream shard's records are handled by one invocation at a
 * time, so its instance sees the shard's hot topics again and again.
 */
export const MARKER_KEPT_MS = 10_000;
/** Markers one instance keeps. */
const MARKERS_KEPT = 10_000;

/**
 * What the stream function does with an event when a fan-out queue is configured: reads the two
 * topics' markers (one small read, whatever the topics' size), and sends one message per share of
 * each topic that has subscribers. It reads no subscription row: the workers read their shares.
 * Undefined when the event must be delivered here instead (a message would exceed the queue's
 * size limit).
 */
export class FanoutPlanner {
  constructor(
    private readonly app: Application,
    private readonly store: RealtimeStore,
    private readonly queue: FanoutQueue,
    private readonly options: FanoutPlanOptions,
    private readonly now: () => number = Date.now,
  ) {}

  private readonly kept = new Map<string, { count: number; at: number }>();

  /** The topics' subscription counts: kept ones while fresh, the others in one read (undefined without markers). */
  private async counts(topics: string[]): Promise<Map<string, number> | undefined> {
    const markers = this.store.markers;
    if (!markers) return undefined;
    const at = this.now();
    const counts = new Map<string, number>();
    for (const topic of topics) {
      const kept = this.kept.get(topic);
      if (kept && at - kept.at < MARKER_KEPT_MS) counts.set(topic, kept.count);
    }
    const missing = topics.filter((topic) => !counts.has(topic));
    if (missing.length === 0) return counts;
    for (const [topic, marker] of await markers.read(missing)) {
      counts.set(topic, marker.count);
      this.kept.delete(topic);
      if (marker.count > 0) this.kept.set(topic, { count: marker.count, at });
    }
    while (this.kept.size > MARKERS_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    return counts;
  }

  async plan(event: LifecycleEvent, sequence?: string, writtenAt?: number): Promise<PlanReport | undefined> {
    const info = this.app.model(event.model);
    if (!info) return { messages: 0 };
    const topics = [modelTopic(info.name), recordTopic(info, event.key)];
    const counts = await this.counts(topics);
    // Without a stored sequence (an event from the in-process bus), nothing identifies a re-send.
    const origin = sequence ?? `${event.name}\u0000${JSON.stringify(event.key)}\u0000${Math.random()}`;
    const messages: QueuedMessage[] = [];
    let subscriptions = 0;
    for (const topic of topics) {
      const count = counts?.get(topic);
      if (count === 0) continue;
      subscriptions += count ?? 0;
      const of = count === undefined ? 1 : sharesFor(count, this.options.subscribersPerShare, this.options.maxShares);
      const topicId = hash(topic).slice(0, 40);
      for (let index = 0; index < of; index++) {
        const body = encodeShare({ event, topic, range: { index, of }, ...(sequence ? { sequence } : {}), ...(writtenAt !== undefined ? { writtenAt } : {}) });
        if (Buffer.byteLength(body) > this.options.maxMessageBytes) return undefined;
        messages.push({ groupId: `${topicId}:${of}:${index}`, deduplicationId: hash(`${origin}\u0000${topic}\u0000${of}\u0000${index}`), body });
      }
    }
    if (messages.length > 0) await this.queue.send(messages);
    return { ...(counts ? { subscriptions } : {}), messages: messages.length };
  }

  /** In-process queues only (npm start, tests): waits until what was sent has been delivered. */
  async settled(): Promise<void> {
    await this.queue.settled?.();
  }
}
