/**
 * A deep copy of a stored item, as structuredClone makes it, for what items hold: plain objects,
 * arrays and primitives are copied here directly (structuredClone serialises and deserialises the
 * whole item, several times the cost); anything else (a Date, a Set, a Uint8Array) is copied by
 * structuredClone itself, and what it refuses (a function, a symbol) is refused alike.
 */
export function copyItem<T>(value: T): T {
  try {
    return copy(value, 0);
  } catch (error) {
    // A cycle, or nesting deeper than any record has: structuredClone keeps the shape, references and all.
    if (error === TOO_DEEP) return structuredClone(value);
    throw error;
  }
}

const TOO_DEEP = Symbol("too deep");
const MAX_DEPTH = 64;

function copy<T>(value: T, depth: number): T {
  if (value === null || value === undefined) return value;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "bigint") return value;
  if (type !== "object") return structuredClone(value);
  if (depth > MAX_DEPTH) throw TOO_DEEP;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i] as unknown, depth + 1);
    return out as T;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const inner = record[key];
    // `__proto__` as an own key (JSON.parse makes one) must stay a key, not become the prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value: copy(inner, depth + 1), enumerable: true, writable: true, configurable: true });
    else out[key] = copy(inner, depth + 1);
  }
  return out as T;
}
