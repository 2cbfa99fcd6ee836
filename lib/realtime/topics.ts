import { createHash } from "node:crypto";
import type { ModelInfo } from "../core/model-info.ts";
import type { KeyValues } from "../core/records.ts";

/** List subscriptions (`Posts(query)`) listen on their model's topic. */
export function modelTopic(model: string): string {
  return model;
}

/** Single-record subscriptions (`Post(slug)`) listen on the record's own topic. */
export function recordTopic(info: ModelInfo, key: KeyValues): string {
  return `${info.name}#${JSON.stringify(info.keyFields.map((field) => key[field] ?? null))}`;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/**
 * Subscriptions whose GraphQL execution is the same function of the delivered value: same document,
 * operation and variables (key order ignored). Who reads is not part of it.
 */
export function documentKey(parts: { query: string; operationName?: string; variables?: Record<string, unknown> }): string {
  return JSON.stringify([parts.query, parts.operationName ?? null, canonical(parts.variables ?? {})]);
}

/**
 * Subscribers whose results are necessarily identical: same document, operation and variables
 * (key order ignored), read with the same permissions (the same user, or anonymous).
 */
export function groupKey(parts: { query: string; operationName?: string; variables?: Record<string, unknown>; userId?: string }): string {
  const text = JSON.stringify([parts.query, parts.operationName ?? null, canonical(parts.variables ?? {}), parts.userId ?? null]);
  return createHash("sha256").update(text).digest("base64url");
}
