/**
 * Words that cannot start a field name because they would make the grammar ambiguous. `BY`,
 * `ASC` and `DESC` only appear after `ORDER` and stay usable as field names.
 */
export const RESERVED = new Set(["AND", "OR", "NOT", "LIKE", "IN", "CONTAINS", "IS", "NULL", "TRUE", "FALSE", "ORDER", "LIMIT", "OFFSET"]);

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `field` can be written in query text as it is. */
export function isWritableField(field: string): boolean {
  const segments = field.split(".");
  const first = segments[0] ?? "";
  return segments.every((segment) => SEGMENT.test(segment)) && !RESERVED.has(first.toUpperCase());
}
