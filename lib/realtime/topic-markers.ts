import { ConflictError, NotFoundError } from "../core/errors.ts";
import type { Item, Repository } from "../store/repository.ts";

/**
 * A topic's marker: how many subscriptions it has and a version that moves with every subscription
 * added to it or removed from it. Fan-out reads the marker (one small item) per event instead of the
 * topic's rows: no message for a topic without subscribers, as many workers as its size asks for,
 * and rows a worker keeps from an earlier event are reused while the version has not moved.
 */
export interface TopicMarker {
  count: number;
  version: number;
}

/**
 * Both figures live in one number, so that one conditional-free atomic ADD keeps them together:
 * adds x ADDED + removals. It only grows (a version), and the count is their difference. A topic
 * can see 90 million additions in its lifetime before the encoding runs out of exact doubles.
 */
const ADDED = 100_000_000;
const FIELD = "changes";
/** Markers share the subscriptions table: a partition per topic, never a connection id (those have no NUL). */
const PARTITION = "\u0000topic:";
const ID = "marker";

/** A marker item as `changed` would leave it after `count` additions (to seed a topic in bulk). */
export function markerItem(topic: string, count: number): Item {
  return { connectionId: `${PARTITION}${topic}`, id: ID, [FIELD]: count * ADDED };
}

export function decodeMarker(value: number): TopicMarker {
  const removed = value % ADDED;
  return { count: Math.max(0, Math.floor(value / ADDED) - removed), version: value };
}

export class TopicMarkers {
  /**
   * `eventually`: reads markers eventually consistently (half the read units), as fan-out reads
   * the topic index today; without it they are read through the repository.
   */
  constructor(
    private readonly repository: Repository & Required<Pick<Repository, "adjust">>,
    private readonly eventually?: (keys: { connectionId: string; id: string }[]) => Promise<Item[]>,
  ) {}

  /** Records that a subscription of `topic` was added (+1) or removed (-1); the topic's count after it. */
  async changed(topic: string, change: 1 | -1): Promise<number> {
    const key = { connectionId: `${PARTITION}${topic}`, id: ID };
    const by = change === 1 ? ADDED : 1;
    try {
      const value = await this.repository.adjust(key, FIELD, by, Number.MAX_SAFE_INTEGER);
      // Undefined only past the (unreachable) maximum: nothing was changed.
      return value === undefined ? 0 : decodeMarker(value).count;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    try {
      await this.repository.create({ ...key, [FIELD]: by });
      return decodeMarker(by).count;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return decodeMarker((await this.repository.adjust(key, FIELD, by, Number.MAX_SAFE_INTEGER)) ?? by).count;
    }
  }

  /** The markers of these topics (a topic never subscribed to reads as count 0, version 0). */
  async read(topics: string[]): Promise<Map<string, TopicMarker>> {
    const unique = [...new Set(topics)];
    const keys = unique.map((topic) => ({ connectionId: `${PARTITION}${topic}`, id: ID }));
    const items: Item[] = this.eventually
      ? await this.eventually(keys)
      : unique.length === 1
        ? [await this.repository.get({ connectionId: `${PARTITION}${unique[0]}`, id: ID })].filter((i): i is Item => i !== undefined)
        : await this.repository.getMany(unique.map((topic) => ({ connectionId: `${PARTITION}${topic}`, id: ID })));
    const markers = new Map<string, TopicMarker>(unique.map((topic) => [topic, { count: 0, version: 0 }]));
    for (const item of items) {
      const topic = String(item.connectionId).slice(PARTITION.length);
      if (typeof item[FIELD] === "number") markers.set(topic, decodeMarker(item[FIELD]));
    }
    return markers;
  }
}
