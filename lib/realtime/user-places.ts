import { ConflictError, NotFoundError, PreconditionFailedError } from "../core/errors.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import type { Item, Repository } from "../store/repository.ts";
import { sleep } from "./pool.ts";
import { TTL_ATTRIBUTE } from "./tables.ts";

/** A place among a signed-in user's connections (the per-user connection limit). */
export interface UserPlace {
  connectionId: string;
  /** Epoch seconds: the connection's own TTL; past it the place no longer counts. */
  expiresAt: number;
}

/** A user's places as read, with the version a write must still find to replace them. */
export interface UserPlaces {
  userId: string;
  places: UserPlace[];
  version?: number;
}

/** Attempts of a release that keeps losing to other writers of the same user's item. */
const RELEASE_ATTEMPTS = 20;

function isLostRace(error: unknown): boolean {
  return error instanceof ConflictError || error instanceof PreconditionFailedError || error instanceof NotFoundError;
}

/** A short random pause, so that writers that lost a race to the same item do not meet again. */
export function contentionPause(attempt: number): Promise<void> {
  const ceiling = Math.min(200, 10 * 2 ** Math.min(attempt, 5));
  return sleep(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * All of one user's places are one item (`places`: connection id -> expiry), written only when its
 * version is still the one read. Admissions and releases are thereby serialised per user: of
 * writers racing for the last place exactly one wins, so a burst admits up to the limit and never
 * past it (rows per place, counted after writing, could refuse a whole burst).
 */
export class UserPlacesTable {
  constructor(
    private readonly repository: Repository,
    private readonly now: () => number,
  ) {}

  async read(userId: string): Promise<UserPlaces> {
    const item = await this.repository.get({ userId });
    if (!item) return { userId, places: [] };
    const version = item[VERSION_FIELD];
    return { userId, places: this.livePlaces(item), ...(typeof version === "number" ? { version } : {}) };
  }

  /** Replaces the places read as `current` with `places`; false when another writer got there first. */
  async write(current: UserPlaces, places: UserPlace[]): Promise<boolean> {
    const key = { userId: current.userId };
    try {
      if (places.length === 0) {
        if (current.version !== undefined) await this.repository.delete(key, { expectedVersion: current.version });
        return true;
      }
      const item: Item = {
        ...key,
        places: Object.fromEntries(places.map((p) => [p.connectionId, p.expiresAt])),
        // The item outlives none of its places: DynamoDB's TTL removes it with the last one.
        [TTL_ATTRIBUTE]: Math.max(...places.map((p) => p.expiresAt)),
      };
      if (current.version === undefined) await this.repository.create(item);
      else await this.repository.replace(key, item, { expectedVersion: current.version });
      return true;
    } catch (error) {
      if (isLostRace(error)) return false;
      throw error;
    }
  }

  /** Gives up a connection's place, whoever else is writing the user's item meanwhile. */
  async release(userId: string, connectionId: string): Promise<void> {
    for (let attempt = 0; attempt < RELEASE_ATTEMPTS; attempt++) {
      const current = await this.read(userId);
      if (!current.places.some((p) => p.connectionId === connectionId)) return;
      if (
        await this.write(
          current,
          current.places.filter((p) => p.connectionId !== connectionId),
        )
      )
        return;
      await contentionPause(attempt);
    }
    // The place expires with its connection's TTL; meanwhile it counts, and a probe reclaims it.
    throw new Error(`could not release the place of ${connectionId}: its user's places kept changing`);
  }

  private livePlaces(item: Item): UserPlace[] {
    const raw = item.places;
    if (typeof raw !== "object" || raw === null) return [];
    const nowS = this.now() / 1000;
    return Object.entries(raw as Record<string, unknown>)
      .filter((entry): entry is [string, number] => typeof entry[1] === "number" && entry[1] > nowS)
      .map(([connectionId, expiresAt]) => ({ connectionId, expiresAt }));
  }
}
