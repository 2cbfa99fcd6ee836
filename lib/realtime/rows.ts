// The rows of the realtime tables as the store reads them: a connection, a subscription, and the
// other rows a connection's partition holds (a tombstone, an earlier version's place rows), each
// read from a stored item by one converter that refuses an item missing a field it needs.
import type { KeyValues } from "../core/records.ts";
import type { Item } from "../store/repository.ts";
import { TTL_ATTRIBUTE } from "./tables.ts";

export type ConnectionState = "pending" | "acknowledged";

export interface ConnectionRow {
  connectionId: string;
  /** Where the management API of this connection's API answers (the stream Lambda has no request context). */
  endpoint: string;
  /** Epoch ms, API Gateway's own connect time. */
  connectedAt: number;
  state: ConnectionState;
  userId?: string;
  /** The access token's `exp` (epoch s) and session, when a token authenticated the connection. */
  authExpiresAt?: number;
  sessionId?: string;
  /** Epoch seconds (DynamoDB TTL). */
  expiresAt: number;
  /** Subscription places this connection holds (`takePlace`), as read with the row. */
  places: number;
}

export type SubscriptionKind = "record" | "list";

export interface SubscriptionRow {
  connectionId: string;
  /** The client's subscription id. */
  id: string;
  topic: string;
  model: string;
  /** The Subscription root field (`Post` or `Posts`). */
  field: string;
  kind: SubscriptionKind;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** The filter text of a list subscription, already checked against the model. */
  filter?: string;
  key?: KeyValues;
  userId?: string;
  /** Copied from the connection: deliveries stop once its credential has expired or was revoked. */
  authExpiresAt?: number;
  sessionId?: string;
  endpoint: string;
  /** Subscriptions sharing document, variables and user share one execution per event. */
  group: string;
  expiresAt: number;
  /** Set when the subscription holds one of its connection's places (`takePlace`), freed with it. */
  place?: number;
  /**
   * The item of its topic's packs holding its entry, and the bytes the entry counts there
   * (topic-packs.ts); absent on rows an earlier version wrote, whose entries are found by depth.
   */
  packItem?: string;
  packBytes?: number;
}

/** The client completed an id before its subscribe was processed (API Gateway may reorder messages). */
export const TOMBSTONE = "completed";
export const TOMBSTONE_LIFETIME_S = 300;

/**
 * A connection's subscription places are a counter on its own row (`places`), which every frame
 * reads anyway: a subscribe at the limit is refused by that read alone, with no write. A place is
 * taken by one conditional increment (only while below the limit), so of subscribes racing for the
 * last place exactly one gets it and each loser costs one failed write, never a retry; counting
 * the subscription rows instead let 60 subscribes sent at once leave 35 live for a limit of 25.
 */
export const PLACES = "places";
/** Marks a subscription row that holds a place. */
export const PLACE = "place";
/** Rows an earlier version kept per place (`\u0000place:<n>`): not subscriptions, removed with the connection. */
export const PLACE_ROW = "place";

/** Rows of a connection's partition that are not subscriptions. */
export function isSubscription(item: Item): boolean {
  return item.state !== TOMBSTONE && item.state !== PLACE_ROW;
}

export function str(item: Item, field: string): string {
  const value = item[field];
  if (typeof value !== "string") throw new Error(`realtime row without '${field}'`);
  return value;
}

export function num(item: Item, field: string): number {
  const value = item[field];
  if (typeof value !== "number") throw new Error(`realtime row without numeric '${field}'`);
  return value;
}

export function optionalString(item: Item, field: string): string | undefined {
  const value = item[field];
  return typeof value === "string" ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function toConnection(item: Item): ConnectionRow {
  const userId = optionalString(item, "userId");
  const state = str(item, "state");
  return {
    connectionId: str(item, "connectionId"),
    endpoint: str(item, "endpoint"),
    connectedAt: num(item, "connectedAt"),
    state: state === "acknowledged" ? "acknowledged" : "pending",
    ...(userId ? { userId } : {}),
    ...credentialOf(item),
    expiresAt: num(item, TTL_ATTRIBUTE),
    places: typeof item[PLACES] === "number" ? item[PLACES] : 0,
  };
}

function credentialOf(item: Item): { authExpiresAt?: number; sessionId?: string } {
  return {
    ...(typeof item.authExpiresAt === "number" ? { authExpiresAt: item.authExpiresAt } : {}),
    ...(typeof item.sessionId === "string" ? { sessionId: item.sessionId } : {}),
  };
}

export function toSubscription(item: Item): SubscriptionRow {
  const optional: Partial<SubscriptionRow> = {};
  if (isRecord(item.variables)) optional.variables = item.variables;
  if (isRecord(item.key)) optional.key = item.key as KeyValues;
  for (const field of ["operationName", "filter", "userId"] as const) {
    const value = optionalString(item, field);
    if (value !== undefined) optional[field] = value;
  }
  Object.assign(optional, credentialOf(item));
  if (typeof item[PLACE] === "number") optional.place = item[PLACE];
  if (typeof item.packItem === "string") optional.packItem = item.packItem;
  if (typeof item.packBytes === "number") optional.packBytes = item.packBytes;
  return {
    connectionId: str(item, "connectionId"),
    id: str(item, "id"),
    topic: str(item, "topic"),
    model: str(item, "model"),
    field: str(item, "field"),
    kind: str(item, "kind") === "record" ? "record" : "list",
    query: str(item, "query"),
    endpoint: str(item, "endpoint"),
    group: str(item, "group"),
    expiresAt: num(item, TTL_ATTRIBUTE),
    ...optional,
  };
}
