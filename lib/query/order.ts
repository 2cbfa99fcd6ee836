/**
 * Orders strings by Unicode code point, which is the order of their UTF-8 bytes and therefore
 * DynamoDB's order for S attributes. Plain `<` on JavaScript strings compares UTF-16 code units
 * and disagrees once a character outside the Basic Multilingual Plane meets one in U+E000-U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates above U+E000-U+FFFF, where the code points they encode belong. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit <= 0xdfff ? unit + 0x2000 : unit - 0x800;
}

/** Orders two values of the same scalar type; undefined when they cannot be ordered. */
export function compareScalars(a: unknown, b: unknown): number | undefined {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  return undefined;
}

/**
 * A total order for sorting mixed values: null/missing, then false < true, then numbers, then
 * strings; anything else (arrays, objects) sorts last and ties with its kind.
 */
export function compareForSort(a: unknown, b: unknown): number {
  const rankA = sortRank(a);
  const rankB = sortRank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return compareScalars(a, b) ?? 0;
}

function sortRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "boolean") return 1;
  if (typeof value === "number") return 2;
  if (typeof value === "string") return 3;
  return 4;
}
