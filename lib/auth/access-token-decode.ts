/**
 * The segments of a compact JWS decoded as jose 6 decodes them on Node (its `atob` path), so that
 * what our verifier takes and refuses is what jose's `jwtVerify` took and refused: `+` and `/` are
 * refused, `=` padding and ASCII whitespace are tolerated (forgiving base64, as `atob`), anything
 * else outside the base64url alphabet is refused. Undefined rather than an exception.
 */
export function decodeSegment(segment: string): Uint8Array | undefined {
  if (segment.includes("+") || segment.includes("/")) return undefined;
  let binary: string;
  try {
    binary = atob(segment.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Fatal, as jose's: a header or claims set that is not UTF-8 is refused, not repaired.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A JSON object (not an array, not null) from UTF-8 bytes; undefined for anything else. */
export function jsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(bytes));
  } catch {
    return undefined;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
