/**
 * Server-only data never crosses the boundary: keys starting with `__` are stripped at any depth,
 * on the way in (client input) and on the way out (responses, events, subscriptions).
 */
export function stripServerOnly<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => stripServerOnly(v)) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (key.startsWith("__")) continue;
    out[key] = stripServerOnly(inner);
  }
  return out as T;
}

export function omit(record: Record<string, unknown>, fields: Iterable<string>): Record<string, unknown> {
  const out = { ...record };
  for (const field of fields) delete out[field];
  return out;
}

export function pick(record: Record<string, unknown>, fields: Iterable<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (field in record) out[field] = record[field];
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
