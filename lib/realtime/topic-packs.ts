import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.ts";
import { inRange, lowerBound, upperBound, type ConnectionRange } from "./connection-ranges.ts";
import type { SubscriptionRow } from "./rows.ts";
import { groupKey } from "./topics.ts";

/**
 * Where a topic's packs and documents are kept (pack-table.ts: the subscriptions table in
 * DynamoDB). A pack is one item per bucket of a topic, one attribute per subscription; a document
 * is one item per distinct subscription document of a topic, named by its hash.
 */
export interface PackTable {
  /** Adds or replaces one subscription's attribute in its bucket's item (created if missing). */
  setEntry(topic: string, bucket: string, name: string, value: string): Promise<void>;
  /** Removes it where it is; nothing (no item made) where it is not. */
  removeEntry(topic: string, bucket: string, name: string): Promise<void>;
  /** The entries of the topic's buckets from `low` (inclusive; "" for the first) up to `below` (exclusive; undefined for the last), page by page. */
  entries(topic: string, low: string, below: string | undefined): AsyncIterable<[name: string, value: string][]>;
  /** Keeps the document named `ref` at least until `expiresAt` (epoch s); false when `ref` names another document. */
  putDocument(topic: string, ref: string, document: string, expiresAt: number): Promise<boolean>;
  documents(topic: string, refs: string[]): Promise<Map<string, string>>;
  /** Items of the same table by key, read eventually consistently (the topics' markers). */
  items(keys: { connectionId: string; id: string }[]): Promise<Record<string, unknown>[]>;
}

/** What every subscriber of one document shares: all of its row but who and where. */
type SubscriptionDocument = Pick<SubscriptionRow, "model" | "field" | "kind" | "query" | "variables" | "operationName" | "filter" | "key" | "endpoint">;

/**
 * Characters of a document's reference: 48 bits of its SHA-256, in base64url. Two documents of one
 * topic with the same reference cannot both be stored: the later subscribe is refused (putDocument).
 */
const REF_LENGTH = 8;
/** Separates the signed-in fields of an entry's value (none of them holds it). */
const FIELD = "\u0001";
/** Documents outlive the subscriptions that name them by a day: a subscribe extends them once a day at most. */
const DOCUMENT_MARGIN_S = 24 * 3600;
/** Documents one instance keeps (immutable: a reference names one content for good). */
const DOCUMENTS_KEPT = 10_000;
/** Rows per page handed to the fan-out: its posts start while later pages are decoded. */
const PAGE = 200;

/**
 * Subscribers a bucket's item is meant to hold at most: about 10 KB of anonymous entries, so a
 * subscribe rewrites an item of at most about ten write units whatever the topic's size (DynamoDB
 * bills an update by the item's whole size), while each item's key (about 26 bytes) stays a few
 * percent of what a share reads once a depth holds a few entries per bucket.
 */
export const ENTRIES_PER_BUCKET = 400;
/** Buckets are the connection id's first 1 to 3 characters: 64, 4,096 or 262,144 of them. */
const DEPTHS = [1, 2, 3] as const;

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

/** The attribute of one subscription: API Gateway's and offline's connection ids hold no space. */
function entryName(connectionId: string, id: string): string {
  if (connectionId.includes(" ")) throw new Error("a connection id with a space cannot be packed");
  return `${connectionId} ${id}`;
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

/**
 * A topic's subscribers packed for fan-out: each subscription is one attribute of its bucket's
 * item (its name the connection and subscription ids, its value the document's reference and,
 * when signed in, the user, credential expiry and session), so a share of 1,000 anonymous
 * subscribers is about 27 KB, read eventually consistently by one Query. Documents (query,
 * variables, filter, endpoint) are stored once per topic under their hash and kept by each
 * instance once read. Kept current as subscriptions are added and removed (RealtimeStore), never
 * rebuilt: a subscribe writes one attribute, a complete removes it. An entry carries no expiry: a
 * connection past its row's TTL is closed by API Gateway (two hours at most), so a post to it
 * answers 410 and the worker removes its entries (`forget`).
 */
export class TopicPacks {
  /** Documents this instance wrote or read, by topic and reference, with the expiry written. */
  private readonly known = new Map<string, { document: string; expiresAt: number }>();

  constructor(
    private readonly table: PackTable,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores the row's document (once a day per instance), then its entry, in a topic of `count` subscriptions. */
  async add(row: SubscriptionRow, count: number): Promise<void> {
    const document = canonicalJson(documentOf(row));
    const ref = createHash("sha256").update(document).digest("base64url").slice(0, REF_LENGTH);
    const cacheKey = `${row.topic}\u0000${ref}`;
    const kept = this.known.get(cacheKey);
    if (!kept || kept.expiresAt < row.expiresAt) {
      const expiresAt = row.expiresAt + DOCUMENT_MARGIN_S;
      if (!(await this.table.putDocument(row.topic, ref, document, expiresAt)))
        throw new Error(`subscription document reference ${ref} names another document`);
      this.remember(cacheKey, { document, expiresAt });
    }
    const signedIn = row.userId !== undefined ? [row.userId, row.authExpiresAt !== undefined ? base36(row.authExpiresAt) : "", row.sessionId ?? ""] : [];
    const value = [ref, ...signedIn].join(FIELD);
    await this.table.setEntry(row.topic, bucketOf(row.connectionId, depthFor(count)), entryName(row.connectionId, row.id), value);
  }

  /** Out of whichever depth's bucket it was written to. */
  async remove(topic: string, connectionId: string, id: string): Promise<void> {
    const name = entryName(connectionId, id);
    await Promise.all(DEPTHS.map((depth) => this.table.removeEntry(topic, bucketOf(connectionId, depth), name)));
  }

  /** The live subscriptions of `topic` whose connection ids fall in `range`, as rows, page by page. */
  async *share(topic: string, range: ConnectionRange): AsyncIterable<SubscriptionRow[]> {
    const upper = upperBound(range);
    const groups = new Map<string, string>();
    for await (const entries of this.table.entries(topic, lowerBound(range), upper)) {
      const decoded = entries.flatMap(([name, value]) => {
        const space = name.indexOf(" ");
        const [ref = "", userId, authExpiresAt, sessionId] = value.split(FIELD);
        const connectionId = name.slice(0, space);
        if (space < 0 || !inRange(range, connectionId)) return [];
        return [{ connectionId, id: name.slice(space + 1), ref, userId, authExpiresAt, sessionId }];
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
