import { canonicalJson } from "../core/canonical-json.ts";
import { inRange, lowerBound, upperBound, type ConnectionRange } from "./connection-ranges.ts";
import { referenceProbes, type DocumentReference } from "./pack-references.ts";
import type { SubscriptionRow } from "./rows.ts";
import { groupKey } from "./topics.ts";

/** One subscription's attribute as read: the item holding it, its name and its value. */
export interface PackEntry {
  item: string;
  name: string;
  value: string;
}

/**
 * Where a topic's packs and documents are kept (pack-table.ts: the subscriptions table in
 * DynamoDB). A pack is one or more items per bucket of a topic, one attribute per subscription; a
 * document is one item per distinct subscription document of a topic, named by its reference.
 */
export interface PackTable {
  /**
   * Adds one subscription's attribute to `item` (created if missing) and counts its `bytes` into
   * the item's count, only while that count stays at most `cap`: false, nothing written, when it
   * would not.
   */
  addEntry(topic: string, item: string, name: string, value: string, bytes: number, cap: number): Promise<boolean>;
  /** Removes it where it is, counting its `bytes` out (undefined: an earlier version's item, which keeps no count); nothing where it is not. */
  removeEntry(topic: string, item: string, name: string, bytes: number | undefined): Promise<void>;
  /** The entries of the topic's buckets from `low` (inclusive; "" for the first) up to `below` (exclusive; undefined for the last), page by page. */
  entries(topic: string, low: string, below: string | undefined): AsyncIterable<PackEntry[]>;
  /** Keeps the document named `ref` at least until `expiresAt` (epoch s); false when `ref` names another document. */
  putDocument(topic: string, ref: string, document: string, expiresAt: number): Promise<boolean>;
  documents(topic: string, refs: string[]): Promise<Map<string, string>>;
  /** Items of the same table by key, read eventually consistently (the topics' markers). */
  items(keys: { connectionId: string; id: string }[]): Promise<Record<string, unknown>[]>;
}

/** Where a subscription's entry was written (kept on its row, so that removing it is one write). */
export interface PackPlace {
  item: string;
  /** What the entry counts in its item; undefined in an earlier version's item, which keeps no count. */
  bytes?: number;
}

/** A subscription whose entry no item of its bucket can take (see `SLOT_LEVELS`). */
export class PackFullError extends Error {
  override readonly name = "PackFullError";
}

/** What every subscriber of one document shares: all of its row but who and where. */
type SubscriptionDocument = Pick<SubscriptionRow, "model" | "field" | "kind" | "query" | "variables" | "operationName" | "filter" | "key" | "endpoint">;

/** Separates the signed-in fields of an entry's value (none of them holds it). */
const FIELD = "\u0001";
/** Documents outlive the subscriptions that name them by a day: a subscribe extends them once a day at most. */
const DOCUMENT_MARGIN_S = 24 * 3600;
/** Documents one instance keeps (immutable: a reference names one content for good). */
const DOCUMENTS_KEPT = 10_000;
/** Rows per page handed to the fan-out: its posts start while later pages are decoded. */
const PAGE = 200;

/**
 * Subscribers a bucket is meant to hold: about 30 KB of anonymous entries with graphql-ws's
 * 36-character ids, so a subscribe rewrites an item of tens of write units at most whatever the
 * topic's size (DynamoDB bills an update by the item's whole size), while each item's key (about
 * 26 bytes) stays a few percent of what a share reads once a depth holds a few entries per bucket.
 */
export const ENTRIES_PER_BUCKET = 400;
/** Buckets are the connection id's first 1 to 3 characters: 64, 4,096 or 262,144 of them. */
const DEPTHS = [1, 2, 3] as const;

/**
 * The bytes of entries (names and values) one item of a bucket takes at most: DynamoDB refuses an
 * item over 400 KB, and bills a write (a failed conditional one too) by the item's size. A
 * bucket's entries fill numbered items (`slotKey`), each under this cap, so whoever chooses the
 * ids (1,024 bytes each, the subscription row's key allows no more) and the connections fills
 * items, never one past its limit.
 */
export const SLOT_BYTES = 64 * 1024;
/**
 * An entry larger than this is refused before anything is written: a connection id and an id of
 * the sizes the row's key allows (1,024 bytes for the id) with a user and session of a few KB fit,
 * and eight of the largest still fit one item.
 */
export const MAX_ENTRY_BYTES = 8 * 1024;
/**
 * Items tried for one entry: item 0, then one chosen at random among items 2^(level-1) ..
 * 2^level - 1 at each further level. Whoever fills a bucket's items to make a subscriber try `n`
 * of them must fill 2^n - 1 items (a new level's are empty until then); every try is one
 * conditional write of an item within `SLOT_BYTES`. Past the last level the subscribe is refused.
 */
const SLOT_LEVELS = 16;

/** How many leading characters of a connection id name its bucket in a topic of `count` subscriptions. */
export function depthFor(count: number): number {
  return DEPTHS.find((depth) => count <= ENTRIES_PER_BUCKET * 64 ** depth) ?? 3;
}

/**
 * A pack's bucket: the connection id's first `depth` characters, so a share (a range of first
 * characters) is a range of buckets at every depth. A topic's buckets deepen as it grows; the
 * entries written at a shallower depth stay where they are until removed.
 */
export function bucketOf(connectionId: string, depth: number): string {
  return connectionId.slice(0, depth);
}

/**
 * The key of a bucket's item number `slot`: the bucket, a space (no connection id holds one) and
 * the number, so it sorts within its bucket's share. An earlier version wrote each bucket as one
 * item named by the bucket alone: those are still read, and emptied, never written to.
 */
export function slotKey(bucket: string, slot: number): string {
  return `${bucket} ${slot}`;
}

/** The attribute of one subscription: API Gateway's and offline's connection ids hold no space. */
function entryName(connectionId: string, id: string): string {
  if (connectionId.includes(" ")) throw new Error("a connection id with a space cannot be packed");
  return `${connectionId} ${id}`;
}

function entryBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value);
}

function documentOf(row: SubscriptionRow): SubscriptionDocument {
  const { model, field, kind, query, variables, operationName, filter, key, endpoint } = row;
  return {
    model,
    field,
    kind,
    query,
    endpoint,
    ...(variables ? { variables } : {}),
    ...(operationName !== undefined ? { operationName } : {}),
    ...(filter !== undefined ? { filter } : {}),
    ...(key ? { key } : {}),
  };
}

const base36 = (n: number) => n.toString(36);

export interface TopicPacksOptions {
  /** Names documents (pack-references.ts: keyed by the application secret). */
  reference: DocumentReference;
  now?: () => number;
  /** Picks items within a level (tests fix it). */
  random?: () => number;
}

/**
 * A topic's subscribers packed for fan-out: each subscription is one attribute of an item of its
 * bucket (its name the connection and subscription ids, its value the document's reference and,
 * when signed in, the user, credential expiry and session), so a share of 1,000 anonymous
 * subscribers is a few tens of KB, read eventually consistently by one Query. Documents (query,
 * variables, filter, endpoint) are stored once per topic under their keyed reference and kept by
 * each instance once read. Kept current as subscriptions are added and removed (RealtimeStore),
 * never rebuilt: a subscribe writes one attribute, a complete removes it. An entry carries no
 * expiry: a connection past its row's TTL is closed by API Gateway (two hours at most), so a post
 * to it answers 410 and the worker removes its entries (`forget`).
 */
export class TopicPacks {
  /** Documents this instance wrote or read, by topic and reference, with the expiry written. */
  private readonly known = new Map<string, { document: string; expiresAt: number }>();
  private readonly reference: DocumentReference;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly table: PackTable,
    options: TopicPacksOptions,
  ) {
    this.reference = options.reference;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Stores the row's document (once a day per instance), then its entry, in a topic of `count` subscriptions; where the entry went. */
  async add(row: SubscriptionRow, count: number): Promise<PackPlace> {
    const name = entryName(row.connectionId, row.id);
    const signedIn = row.userId !== undefined ? [row.userId, row.authExpiresAt !== undefined ? base36(row.authExpiresAt) : "", row.sessionId ?? ""] : [];
    // Refused before anything is written: a reference is at most 32 bytes.
    const largest = entryBytes(name, signedIn.join(FIELD)) + 33;
    if (largest > MAX_ENTRY_BYTES) throw new PackFullError(`a subscription entry of about ${largest} bytes is over ${MAX_ENTRY_BYTES}`);
    const value = [await this.storeDocument(row), ...signedIn].join(FIELD);
    const bytes = entryBytes(name, value);
    const bucket = bucketOf(row.connectionId, depthFor(count));
    for (let level = 0; level < SLOT_LEVELS; level++) {
      const width = level === 0 ? 0 : 2 ** (level - 1);
      const item = slotKey(bucket, width + Math.floor(this.random() * width));
      if (await this.table.addEntry(row.topic, item, name, value, bytes, SLOT_BYTES)) return { item, bytes };
    }
    throw new PackFullError(`topic ${row.topic}: bucket ${bucket} has no item with room for ${bytes} bytes`);
  }

  /**
   * The reference of the row's document, stored under it. A reference this instance has seen
   * counts only for the very document it saw: another document under it (a collision) is never
   * taken for it, and moves to the next free reference (`referenceProbes`).
   */
  private async storeDocument(row: SubscriptionRow): Promise<string> {
    const document = canonicalJson(documentOf(row));
    for (const ref of referenceProbes(this.reference(row.topic, document))) {
      const cacheKey = `${row.topic}\u0000${ref}`;
      const kept = this.known.get(cacheKey);
      if (kept && kept.document !== document) continue;
      if (kept && kept.expiresAt >= row.expiresAt) return ref;
      const expiresAt = row.expiresAt + DOCUMENT_MARGIN_S;
      if (!(await this.table.putDocument(row.topic, ref, document, expiresAt))) continue;
      this.remember(cacheKey, { document, expiresAt });
      return ref;
    }
    throw new Error(`topic ${row.topic}: every reference of a subscription document names another document`);
  }

  /** Out of the item it was written to (`place`, from its row); a row without one, out of whichever earlier version's item holds it. */
  async remove(topic: string, connectionId: string, id: string, place?: PackPlace): Promise<void> {
    const name = entryName(connectionId, id);
    if (place) return this.table.removeEntry(topic, place.item, name, place.bytes);
    await Promise.all(DEPTHS.map((depth) => this.table.removeEntry(topic, bucketOf(connectionId, depth), name, undefined)));
  }

  /** The live subscriptions of `topic` whose connection ids fall in `range`, as rows (each with its entry's place), page by page. */
  async *share(topic: string, range: ConnectionRange): AsyncIterable<SubscriptionRow[]> {
    const upper = upperBound(range);
    const groups = new Map<string, string>();
    for await (const entries of this.table.entries(topic, lowerBound(range), upper)) {
      const decoded = entries.flatMap(({ item, name, value }) => {
        const space = name.indexOf(" ");
        const [ref = "", userId, authExpiresAt, sessionId] = value.split(FIELD);
        const connectionId = name.slice(0, space);
        if (space < 0 || !inRange(range, connectionId)) return [];
        // An earlier version's item (no space in its key) keeps no count.
        const place: PackPlace = item.includes(" ") ? { item, bytes: entryBytes(name, value) } : { item };
        return [{ connectionId, id: name.slice(space + 1), ref, userId, authExpiresAt, sessionId, place }];
      });
      const documents = await this.documents(topic, [...new Set(decoded.map((entry) => entry.ref))]);
      const rows: SubscriptionRow[] = [];
      for (const entry of decoded) {
        const document = documents.get(entry.ref);
        if (!document) continue;
        const userId = entry.userId || undefined;
        const groupOf = `${entry.ref}\u0000${userId ?? ""}`;
        let group = groups.get(groupOf);
        if (group === undefined) groups.set(groupOf, (group = groupKey({ ...document, ...(userId ? { userId } : {}) })));
        rows.push({
          ...document,
          connectionId: entry.connectionId,
          id: entry.id,
          topic,
          group,
          // Its connection's TTL stands in: a post past it finds the socket gone.
          expiresAt: Math.ceil(this.now() / 1000) + 60,
          ...(userId ? { userId } : {}),
          ...(entry.authExpiresAt ? { authExpiresAt: parseInt(entry.authExpiresAt, 36) } : {}),
          ...(entry.sessionId ? { sessionId: entry.sessionId } : {}),
          packItem: entry.place.item,
          ...(entry.place.bytes !== undefined ? { packBytes: entry.place.bytes } : {}),
        });
      }
      for (let at = 0; at < rows.length; at += PAGE) yield rows.slice(at, at + PAGE);
    }
  }

  private async documents(topic: string, refs: string[]): Promise<Map<string, SubscriptionDocument>> {
    const out = new Map<string, SubscriptionDocument>();
    const missing: string[] = [];
    for (const ref of refs) {
      const kept = this.known.get(`${topic}\u0000${ref}`);
      if (kept) out.set(ref, JSON.parse(kept.document) as SubscriptionDocument);
      else missing.push(ref);
    }
    if (missing.length > 0) {
      for (const [ref, document] of await this.table.documents(topic, missing)) {
        // Read, not written here: a subscribe on this instance still extends its expiry.
        this.remember(`${topic}\u0000${ref}`, { document, expiresAt: 0 });
        out.set(ref, JSON.parse(document) as SubscriptionDocument);
      }
    }
    return out;
  }

  private remember(key: string, entry: { document: string; expiresAt: number }): void {
    this.known.delete(key);
    this.known.set(key, entry);
    if (this.known.size > DOCUMENTS_KEPT) this.known.delete(this.known.keys().next().value as string);
  }
}

/** Where a row's entry is, as the row keeps it (`packItem`, `packBytes`); undefined for a row an earlier version wrote. */
export function placeOf(row: Pick<SubscriptionRow, "packItem" | "packBytes">): PackPlace | undefined {
  return row.packItem === undefined ? undefined : { item: row.packItem, ...(row.packBytes !== undefined ? { bytes: row.packBytes } : {}) };
}
