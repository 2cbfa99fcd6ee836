import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.ts";
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

/**
 * Subscriptions whose GraphQL execution is the same function of the delivered value: same document,
 * operation and variables (key order ignored). Who reads is not part of it.
 */
export function documentKey(parts: { query: string; operationName?: string; variables?: Record<string, unknown> }): string {
  return `[${JSON.stringify(parts.query)},${JSON.stringify(parts.operationName ?? null)},${canonicalJson(parts.variables ?? {})}]`;
}

/**
 * Subscribers whose results are necessarily identical: same document, operation and variables
 * (key order ignored), read with the same permissions (the same user, or anonymous).
 */
export function groupKey(parts: { query: string; operationName?: string; variables?: Record<string, unknown>; userId?: string }): string {
  const text = `[${JSON.stringify(parts.query)},${JSON.stringify(parts.operationName ?? null)},${canonicalJson(parts.variables ?? {})},${JSON.stringify(parts.userId ?? null)}]`;
  return createHash("sha256").update(text).digest("base64url");
}
