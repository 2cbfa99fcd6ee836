/**
 * A topic's subscribers split into shares by connection id, so that each fan-out worker reads and
 * posts to its own share only: a share is a range of the `by_topic` index's sort key, read by one
 * Query. API Gateway's connection ids are base64 strings, so ranges cut the base64 alphabet (in
 * the byte order DynamoDB sorts by) into equal parts of the first character; ids that are not
 * (offline's, a test's) still fall in exactly one share, only less evenly.
 */
const ALPHABET = "+/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The most shares a topic is split into: one per character of the alphabet. */
export const MAX_SHARES = ALPHABET.length;

export interface ConnectionRange {
  /** 0 .. of - 1 */
  index: number;
  /** A power of two, at most MAX_SHARES. */
  of: number;
}

/** The inclusive lower bound of a range ("" for the first). */
export function lowerBound(range: ConnectionRange): string {
  return range.index === 0 ? "" : (ALPHABET[(range.index * ALPHABET.length) / range.of] as string);
}

/** The exclusive upper bound (undefined for the last range: everything above its lower bound). */
export function upperBound(range: ConnectionRange): string | undefined {
  return range.index === range.of - 1 ? undefined : lowerBound({ index: range.index + 1, of: range.of });
}

export function inRange(range: ConnectionRange, connectionId: string): boolean {
  const upper = upperBound(range);
  return connectionId >= lowerBound(range) && (upper === undefined || connectionId < upper);
}

/**
 * How many shares a topic of `count` subscriptions is split into: enough that no share holds more
 * than `perShare` (as far as `maxShares` allows), rounded up to a power of two so that the split
 * changes only when the topic doubles or halves.
 */
export function sharesFor(count: number, perShare: number, maxShares: number): number {
  const cap = Math.min(MAX_SHARES, Math.max(1, maxShares));
  let shares = 1;
  while (shares < cap && count > shares * perShare) shares *= 2;
  return Math.min(shares, 2 ** Math.floor(Math.log2(cap)));
}
