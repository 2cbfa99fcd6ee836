import { MessageType, stringifyMessage } from "graphql-ws";
import { errorFields, log } from "../core/log.ts";
import type { RealtimeOptions } from "./options.ts";
import { forEachBounded } from "../core/concurrency.ts";
import { withTimeout } from "./pool.ts";
import type { RealtimeStore } from "./store.ts";
import { classifyPostError, type Transport } from "./transport.ts";
import { contentionPause, type UserPlace } from "./user-places.ts";

export interface UserLimitDeps {
  store: RealtimeStore;
  transport: Transport;
  options: RealtimeOptions;
}

export type Admission = { admitted: true } | { admitted: false; held: number; limit: number };

/**
 * Takes a place for an acknowledged connection among its user's connections, or refuses it.
 *
 * The user's places are one item written only if unchanged since read (user-places.ts), so of
 * connections racing for the last place exactly one gets it and the limit is never exceeded. A
 * full set is checked before refusing: places whose connection row is gone (a `$disconnect` that
 * never ran to the end) and sockets API Gateway answers 410 for (probed with a graphql-ws `ping`,
 * which the protocol allows at any time) are dropped by the same write that takes the place.
 */
export async function admitUserConnection(deps: UserLimitDeps, userId: string, place: UserPlace): Promise<Admission> {
  const limit = deps.options.maxConnectionsPerUser;
  const probed = new Map<string, boolean>();
  // A lost race means another writer changed the item; once the places are full, contenders stop
  // writing, so a burst loses at most about `limit` times (plus releases meanwhile).
  const attempts = limit + 10;
  let held = 0;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const current = await deps.store.userPlaces.read(userId);
    if (current.places.some((p) => p.connectionId === place.connectionId)) return { admitted: true };
    let kept = current.places;
    if (kept.length >= limit) {
      await probe(
        deps,
        userId,
        kept.filter((p) => !probed.has(p.connectionId)),
        probed,
      );
      kept = kept.filter((p) => probed.get(p.connectionId) !== false);
    }
    held = kept.length;
    if (held >= limit) return { admitted: false, held, limit };
    if (await deps.store.userPlaces.write(current, [...kept, place])) {
      await removeGone(
        deps,
        current.places.filter((p) => probed.get(p.connectionId) === false),
      );
      return { admitted: true };
    }
    await contentionPause(attempt);
  }
  log.warn("a connection could not take a place: its user's places kept changing", { connectionId: place.connectionId });
  return { admitted: false, held, limit };
}

/** Records in `verdicts` whether each place's connection is still alive (false: gone). */
async function probe(deps: UserLimitDeps, userId: string, places: UserPlace[], verdicts: Map<string, boolean>): Promise<void> {
  if (places.length === 0) return;
  const { store, transport, options } = deps;
  const rows = await store.connectionsByIds(places.map((p) => p.connectionId));
  const ping = stringifyMessage({ type: MessageType.Ping });
  await forEachBounded(places, options.concurrency, async (place) => {
    const row = rows.get(place.connectionId);
    if (!row || row.state !== "acknowledged" || row.userId !== userId) {
      verdicts.set(place.connectionId, false);
      return;
    }
    const outcome = await withTimeout(
      transport.post(row, ping).then(
        () => "alive" as const,
        (error: unknown) => (classifyPostError(error) === "gone" ? ("gone" as const) : ("unknown" as const)),
      ),
      options.postTimeoutMs,
      () => "unknown" as const,
    );
    verdicts.set(place.connectionId, outcome !== "gone");
  });
}

/** The rows of connections found gone, once their places were given away. */
async function removeGone(deps: UserLimitDeps, gone: UserPlace[]): Promise<void> {
  for (const place of gone) {
    log.info("a connection holding a user's place was gone", { connectionId: place.connectionId });
    await deps.store
      .removeConnection(place.connectionId)
      .catch((error: unknown) => log.warn("could not remove a gone connection", { connectionId: place.connectionId, ...errorFields(error) }));
  }
}
