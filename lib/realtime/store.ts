import { ConflictError, NotFoundError, PreconditionFailedError } from "../core/errors.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import type { Item, PageSizes, Repository } from "../store/repository.ts";
import { TTL_ATTRIBUTE } from "./tables.ts";
import { errorFields, log } from "../core/log.ts";
import { inRange, type ConnectionRange } from "./connection-ranges.ts";
import { TopicMarkers } from "./topic-markers.ts";
import type { DocumentReference } from "./pack-references.ts";
import { placeOf, TopicPacks, type PackPlace, type PackTable } from "./topic-packs.ts";
import { UserPlacesTable } from "./user-places.ts";
import {
  isSubscription,
  num,
  optionalString,
  PLACE,
  PLACE_ROW,
  PLACES,
  str,
  toConnection,
  toSubscription,
  TOMBSTONE,
  TOMBSTONE_LIFETIME_S,
  type ConnectionRow,
  type SubscriptionRow,
} from "./rows.ts";

export type { ConnectionRow, ConnectionState, SubscriptionKind, SubscriptionRow } from "./rows.ts";

export type AddOutcome = "added" | "exists" | "completed";

export interface RealtimeRepositories {
  /** Holds each connection's count of subscription places, so it must keep counters (`adjust`). */
  connections: Repository & Required<Pick<Repository, "adjust">>;
  subscriptions: Repository;
  /** One item per user holding their places (tables.ts, `userConnectionShape`; user-places.ts). */
  userConnections: Repository;
  /**
   * The subscriptions table again, for its topic markers (topic-markers.ts). Without it no marker
   * is kept, and fan-out reads a topic's rows for every event.
   */
  topicMarkers?: Repository & Required<Pick<Repository, "adjust">>;
  /**
   * Where each topic's subscribers are kept packed for fan-out workers (topic-packs.ts); without
   * it a worker reads its topic's rows from the index and keeps those of its share.
   */
  topicPacks?: PackTable;
}

/** Thrown by `placed` when the row was completed while its entry was being written. */
const COMPLETED = new Error("completed while added");

/** The place a stored row notes for its entry (none on rows an earlier version wrote). */
function toPlace(item: Item): { packItem?: string; packBytes?: number } {
  return {
    ...(typeof item.packItem === "string" ? { packItem: item.packItem } : {}),
    ...(typeof item.packBytes === "number" ? { packBytes: item.packBytes } : {}),
  };
}

async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

/**
 * Connection and subscription rows over two Repositories (DynamoDB in Lambda, memory in tests).
 * A row past its TTL is treated as gone even before DynamoDB's lazy TTL sweep removes it.
 */
export class RealtimeStore {
  private readonly connections: RealtimeRepositories["connections"];
  private readonly subscriptions: Repository;
  /** The per-user connection limit's places (user-limit.ts decides, this keeps them). */
  readonly userPlaces: UserPlacesTable;
  /** Each topic's subscription count and version, when the repositories keep them. */
  readonly markers: TopicMarkers | undefined;
  /** Each topic's subscribers packed into a few compact items, when the repositories keep them. */
  readonly packs: TopicPacks | undefined;

  /** `reference` names the packs' documents (pack-references.ts); needed with `topicPacks`. */
  constructor(
    repositories: RealtimeRepositories,
    private readonly now: () => number = Date.now,
    reference?: DocumentReference,
  ) {
    this.connections = repositories.connections;
    this.subscriptions = repositories.subscriptions;
    const packs = repositories.topicPacks;
    this.markers = repositories.topicMarkers
      ? new TopicMarkers(repositories.topicMarkers, packs ? (keys) => packs.items(keys) as Promise<Item[]> : undefined)
      : undefined;
    if (packs && !reference) throw new Error("topic packs need a document reference (pack-references.ts)");
    this.packs = packs && reference ? new TopicPacks(packs, { reference, now }) : undefined;
    this.userPlaces = new UserPlacesTable(repositories.userConnections, now);
  }

  private live(item: Item | undefined): item is Item {
    return item !== undefined && typeof item[TTL_ATTRIBUTE] === "number" && (item[TTL_ATTRIBUTE] as number) * 1000 > this.now();
  }

  async putConnection(row: Omit<ConnectionRow, "places">): Promise<void> {
    await this.connections.create({ ...row });
  }

  async getConnection(connectionId: string): Promise<(ConnectionRow & { version: number }) | undefined> {
    const item = await this.connections.get({ connectionId });
    if (!this.live(item)) return undefined;
    return { ...toConnection(item), version: num(item, VERSION_FIELD) };
  }

  /** False when another connection_init got there first (the version moved): the caller closes 4429. */
  async acknowledge(
    connectionId: string,
    version: number,
    change: { userId?: string; authExpiresAt?: number; sessionId?: string; expiresAt: number },
  ): Promise<boolean> {
    try {
      const set: Item = {
        state: "acknowledged",
        [TTL_ATTRIBUTE]: change.expiresAt,
        ...(change.userId ? { userId: change.userId } : {}),
        ...(change.authExpiresAt !== undefined ? { authExpiresAt: change.authExpiresAt } : {}),
        ...(change.sessionId ? { sessionId: change.sessionId } : {}),
      };
      await this.connections.patch({ connectionId }, set, [], { expectedVersion: version });
      return true;
    } catch (error) {
      if (error instanceof PreconditionFailedError || error instanceof NotFoundError) return false;
      throw error;
    }
  }

  /**
   * One of the connection's `max` subscription places: one conditional write, which succeeds only
   * while fewer than `max` are held. False when none is free (or the connection is gone).
   */
  async takePlace(connectionId: string, max: number): Promise<boolean> {
    try {
      return (await this.connections.adjust({ connectionId }, PLACES, 1, max)) !== undefined;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  async releasePlace(connectionId: string): Promise<void> {
    await ignoreMissing(this.connections.adjust({ connectionId }, PLACES, -1, Number.MAX_SAFE_INTEGER));
  }

  async hasSubscription(connectionId: string, id: string): Promise<boolean> {
    const item = await this.subscriptions.get({ connectionId, id });
    return this.live(item) && item.state !== TOMBSTONE;
  }

  /** The create is the atomic duplicate check: a second subscribe with the same id is refused here. */
  async addSubscription(row: SubscriptionRow): Promise<AddOutcome> {
    try {
      await this.subscriptions.create({ ...row });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return this.existingSubscription(row);
    }
    let count: number;
    try {
      count = (await this.markers?.changed(row.topic, 1)) ?? 1;
    } catch (error) {
      // A row its topic's marker does not count could be skipped by fan-out: it is not kept.
      await ignoreMissing(this.subscriptions.delete({ connectionId: row.connectionId, id: row.id }));
      throw error;
    }
    let place: PackPlace | undefined;
    try {
      place = await this.packs?.add(row, count);
      if (place) await this.placed(row, place);
    } catch (error) {
      if (error === COMPLETED) return "added";
      // A row missing from its topic's packs would never be delivered to: it is not kept either.
      await ignoreMissing(this.subscriptions.delete({ connectionId: row.connectionId, id: row.id }));
      await this.markers?.changed(row.topic, -1).catch(() => undefined);
      throw error;
    }
    return "added";
  }

  /**
   * Notes on the row where its entry went, so that its removal is one write. A row completed
   * meanwhile (gone, or replaced by a tombstone) has been counted out and freed its place, but its
   * complete could not find the entry: it is removed here (COMPLETED), and nothing else undone.
   */
  private async placed(row: SubscriptionRow, place: PackPlace): Promise<void> {
    const key = { connectionId: row.connectionId, id: row.id };
    try {
      const set = { packItem: place.item, ...(place.bytes !== undefined ? { packBytes: place.bytes } : {}) };
      await this.subscriptions.patch(key, set, [], { expectedFields: { state: undefined } });
    } catch (error) {
      // Left behind, the entry would be posted to until its connection ends (a 410 clears it): logged, not thrown over the cause.
      await this.packs
        ?.remove(row.topic, row.connectionId, row.id, place)
        .catch((e: unknown) => log.warn("pack entry not removed", { topic: row.topic, connectionId: row.connectionId, ...errorFields(e) }));
      if (error instanceof NotFoundError || error instanceof PreconditionFailedError) throw COMPLETED;
      throw error;
    }
  }

  private async existingSubscription(row: SubscriptionRow): Promise<AddOutcome> {
    const existing = await this.subscriptions.get({ connectionId: row.connectionId, id: row.id });
    if (existing?.state === TOMBSTONE) {
      await ignoreMissing(this.subscriptions.delete({ connectionId: row.connectionId, id: row.id }));
      return "completed";
    }
    if (!this.live(existing)) {
      // A leftover past its TTL does not count as the id being in use.
      await ignoreMissing(this.subscriptions.delete({ connectionId: row.connectionId, id: row.id }));
      return this.addSubscription(row);
    }
    return "exists";
  }

  /** A complete for an id not stored yet leaves a tombstone, so the late subscribe is dropped. */
  async completeSubscription(connectionId: string, id: string): Promise<void> {
    if (this.packs) {
      // Out of its pack first: a failure here leaves the row, and a retried complete finds it again.
      const item = await this.subscriptions.get({ connectionId, id });
      if (item && isSubscription(item) && typeof item.topic === "string") await this.packs.remove(item.topic, connectionId, id, placeOf(toPlace(item)));
    }
    try {
      const removed = await this.subscriptions.delete({ connectionId, id });
      await this.removedFromTopic(removed);
      // Only the one delete that removed the row releases its place, so a place is freed once.
      if (removed[PLACE] !== undefined && removed.state !== PLACE_ROW) await this.releasePlace(connectionId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const expiresAt = Math.ceil(this.now() / 1000) + TOMBSTONE_LIFETIME_S;
      await this.subscriptions.create({ connectionId, id, state: TOMBSTONE, [TTL_ATTRIBUTE]: expiresAt }).catch((e: unknown) => {
        if (!(e instanceof ConflictError)) throw e;
      });
    }
  }

  /**
   * Only the delete that removed a subscription row counts it out of its topic. A marker left too
   * high costs a message that finds nobody, never a missed delivery: a failure is logged only.
   */
  private async removedFromTopic(removed: Item): Promise<void> {
    if (!this.markers || typeof removed.topic !== "string" || !isSubscription(removed)) return;
    await this.markers
      .changed(removed.topic, -1)
      .catch((error: unknown) => log.warn("topic marker not decremented", { topic: removed.topic, ...errorFields(error) }));
  }

  /** One read of the topic index for all the topics an event concerns. */
  async subscriptionsFor(topics: string[]): Promise<SubscriptionRow[]> {
    const items = await this.subscriptions.findByField("topic", topics);
    return items.filter((item) => this.live(item) && item.state !== TOMBSTONE).map(toSubscription);
  }

  /**
   * The same rows page by page as the store reads them (DynamoDB: Queries of `sizes`), so fan-out
   * posts to the first subscribers while the rest are read.
   */
  async *subscriptionPagesFor(topics: string[], sizes: PageSizes): AsyncIterable<SubscriptionRow[]> {
    const pages = this.subscriptions.findByFieldPages?.("topic", topics, sizes) ?? [await this.subscriptions.findByField("topic", topics)];
    for await (const items of pages) yield items.filter((item) => this.live(item) && item.state !== TOMBSTONE).map(toSubscription);
  }

  /** The live subscriptions of one topic whose connection ids fall in `range`, page by page. */
  async *subscriptionShare(topic: string, range: ConnectionRange, sizes: PageSizes): AsyncIterable<SubscriptionRow[]> {
    if (this.packs) {
      yield* this.packs.share(topic, range);
      return;
    }
    for await (const rows of this.subscriptionPagesFor([topic], sizes)) yield rows.filter((row) => inRange(range, row.connectionId));
  }

  async subscriptionsOf(connectionId: string): Promise<SubscriptionRow[]> {
    const items = await this.subscriptions.findByField("connectionId", [connectionId]);
    return items.filter(isSubscription).map(toSubscription);
  }

  /** Live connection rows by id; missing and expired ones are absent from the map. */
  async connectionsByIds(connectionIds: string[]): Promise<Map<string, ConnectionRow>> {
    const items = connectionIds.length > 0 ? await this.connections.getMany(connectionIds.map((connectionId) => ({ connectionId }))) : [];
    return new Map(items.filter((item) => this.live(item)).map((item) => [str(item, "connectionId"), toConnection(item)]));
  }

  /**
   * The connection row, every row of its partition (tombstones included) and its place among its
   * user's connections. Every path that ends a connection comes here ($disconnect, a 410 from a
   * post, a protocol close, an ended credential), so a place is freed however the socket went.
   */
  async removeConnection(connectionId: string): Promise<void> {
    const items = await this.subscriptions.findByField("connectionId", [connectionId]);
    const packs = this.packs;
    if (packs) {
      // Out of the packs before the rows go: a failure leaves rows that a later removal finds again.
      const subscriptions = items.filter((item) => isSubscription(item) && typeof item.topic === "string");
      await Promise.all(subscriptions.map((item) => packs.remove(String(item.topic), connectionId, str(item, "id"), placeOf(toPlace(item)))));
    }
    await Promise.all(
      items.map(async (item) => {
        try {
          await this.removedFromTopic(await this.subscriptions.delete({ connectionId, id: str(item, "id") }));
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
        }
      }),
    );
    let removed: Item | undefined;
    try {
      removed = await this.connections.delete({ connectionId });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    const userId = removed ? optionalString(removed, "userId") : undefined;
    if (userId) await this.userPlaces.release(userId, connectionId);
  }
}
