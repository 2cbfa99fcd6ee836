/**
 * JSON with every object's keys sorted (JSON.stringify's output otherwise), so that one value has
 * one text however its keys came out: DynamoDB returns attributes in an order of its own, a client
 * sends variables in any order. A GET's ETag computes it every time, so the common value (no key
 * that looks like an array index) is rearranged into key order and handed to JSON.stringify once,
 * copying only the objects whose keys are out of order.
 */
export function canonicalJson(value: unknown): string {
  const ordered = inKeyOrder(value);
  return ordered === UNORDERABLE ? written(value) : (JSON.stringify(ordered) ?? "");
}

const UNORDERABLE = Symbol("unorderable");

/**
 * Keys an object literal cannot take in sorted order: an array index ("0", "42") comes first in
 * any object, in numeric order, whatever order it was inserted in; `__proto__` would set the copy's
 * prototype instead of adding a key.
 */
function unorderable(key: string): boolean {
  const first = key.charCodeAt(0);
  return (first >= 48 && first <= 57) || key === "__proto__";
}

/** The value, or a copy of it with every object's keys inserted in sorted order; UNORDERABLE if it cannot be. */
function inKeyOrder(value: unknown): unknown {
  if (value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const ordered = inKeyOrder(item);
      if (ordered === UNORDERABLE) return UNORDERABLE;
      if (ordered !== item) (copy ??= value.slice())[i] = ordered;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  // Nested values that had to be copied, by key (most records have none).
  let copies: Map<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (unorderable(key)) return UNORDERABLE;
    if (i > 0 && (keys[i - 1] as string) > key) sorted = false;
    const inner = record[key];
    if (inner !== null && typeof inner === "object") {
      const ordered = inKeyOrder(inner);
      if (ordered === UNORDERABLE) return UNORDERABLE;
      if (ordered !== inner) (copies ??= new Map()).set(key, ordered);
    }
  }
  if (sorted && !copies) return record;
  const copy: Record<string, unknown> = {};
  for (const key of sorted ? keys : keys.sort()) copy[key] = copies?.has(key) ? copies.get(key) : record[key];
  return copy;
}

/** The same text written piece by piece: for values holding index-like keys. */
function written(value: unknown): string {
  if (value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(value) ?? "";
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined || typeof v === "function" || typeof v === "symbol" ? "null" : written(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const inner = record[key];
    if (inner === undefined || typeof inner === "function" || typeof inner === "symbol") continue;
    parts.push(`${JSON.stringify(key)}:${written(inner)}`);
  }
  return `{${parts.join(",")}}`;
}
