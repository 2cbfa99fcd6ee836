import type { PageSizes } from "../store/repository.ts";
import type { ConnectionRange } from "./connection-ranges.ts";
import type { RealtimeStore, SubscriptionRow } from "./store.ts";

interface Entry {
  version: number;
  /** When this instance first saw the marker at `version`. */
  seenAt: number;
  /** When the rows were read (their Query started). */
  readAt: number;
  rows: SubscriptionRow[];
}

export interface ShareRead {
  rows: SubscriptionRow[];
  /** False when the rows kept from an earlier event were used (only the marker was read). */
  read: boolean;
}

/**
 * The rows of the topic shares this instance delivered to, kept between events while the topic's
 * marker has not moved, so a hot topic's rows are not read again for each of its events. `by_topic`
 * is an index, read eventually consistently: rows read within `settleMs` of this instance first
 * seeing a version are read again next time, so a subscription the index had not yet shown is
 * picked up once it settles. Rows past their TTL are dropped at every use. At most `maxRows` rows
 * are kept, the least recently used shares leaving first.
 */
export class TopicShares {
  private readonly entries = new Map<string, Entry>();
  private rowsKept = 0;

  constructor(
    private readonly store: RealtimeStore,
    private readonly options: { settleMs: number; maxRows: number; sizes: PageSizes },
    private readonly now: () => number = Date.now,
  ) {}

  async rows(topic: string, range: ConnectionRange): Promise<ShareRead> {
    const markers = this.store.markers;
    if (!markers) return { rows: await this.readShare(topic, range), read: true };
    const marker = (await markers.read([topic])).get(topic) ?? { count: 0, version: 0 };
    const key = `${topic}\u0000${range.index}/${range.of}`;
    const entry = this.entries.get(key);
    const at = this.now();
    if (entry && entry.version === marker.version && entry.readAt - entry.seenAt >= this.options.settleMs) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      const nowS = at / 1000;
      return { rows: entry.rows.filter((row) => row.expiresAt > nowS), read: false };
    }
    const seenAt = entry?.version === marker.version ? entry.seenAt : at;
    const rows = await this.readShare(topic, range);
    this.forget(key);
    this.entries.set(key, { version: marker.version, seenAt, readAt: at, rows });
    this.rowsKept += rows.length;
    while (this.rowsKept > this.options.maxRows && this.entries.size > 1) this.forget(this.entries.keys().next().value as string);
    return { rows, read: true };
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.rowsKept -= entry.rows.length;
    this.entries.delete(key);
  }

  private async readShare(topic: string, range: ConnectionRange): Promise<SubscriptionRow[]> {
    const rows: SubscriptionRow[] = [];
    for await (const page of this.store.subscriptionShare(topic, range, this.options.sizes)) rows.push(...page);
    return rows;
  }
}
