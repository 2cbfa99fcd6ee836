/**
 * The UTF-8 length of `JSON.stringify(value)` (0 where it gives undefined), counted without
 * writing the text: a listing measures every record against its byte budget before the response
 * serialises them, and writing each one twice was a tenth of a 50-record GraphQL request.
 */
export function jsonBytes(value: unknown): number {
  return measure(value, JSON_TEXT);
}

/**
 * The bytes `value`'s JSON takes inside a Lambda response payload, where the body is itself a JSON
 * string: `JSON.stringify(JSON.stringify(value))` less its two outer quotes. Every `"` and `\` of
 * the text is escaped once more, so a page of 5 MiB of JSON can be over 6 MB there.
 */
export function payloadBytes(value: unknown): number {
  return measure(value, PAYLOAD_TEXT);
}

/** How a JSON text is counted: as written, or as written inside another JSON string. */
interface Measure {
  string(text: string): number;
  written(text: string): number;
}

const JSON_TEXT: Measure = {
  string: (text) => (PLAIN.test(text) ? text.length + 2 : Buffer.byteLength(JSON.stringify(text))),
  written: (text) => Buffer.byteLength(text),
};

const PAYLOAD_TEXT: Measure = {
  string: (text) => (PLAIN.test(text) ? text.length + 4 : Buffer.byteLength(JSON.stringify(JSON.stringify(text))) - 2),
  written: (text) => Buffer.byteLength(JSON.stringify(text)) - 2,
};

function measure(value: unknown, m: Measure): number {
  switch (typeof value) {
    case "string":
      return m.string(value);
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object":
      return value === null ? 4 : objectBytes(value, m);
    default:
      // undefined, a function, a symbol: no text; a bigint: JSON.stringify's own TypeError.
      return typeof value === "bigint" ? m.written(JSON.stringify(value)) : 0;
  }
}

/** Characters JSON writes as themselves, one byte each: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

// Most strings need no escape and are ASCII (PLAIN); the others are written out to be measured.

function objectBytes(value: object, m: Measure): number {
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : m.written(text);
  }
  if (Array.isArray(value)) {
    let bytes = 2 + Math.max(0, value.length - 1);
    for (const item of value as unknown[]) bytes += item === undefined || typeof item === "function" || typeof item === "symbol" ? 4 : measure(item, m);
    return bytes;
  }
  let bytes = 2;
  let members = 0;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const inner = record[key];
    if (inner === undefined || typeof inner === "function" || typeof inner === "symbol") continue;
    bytes += m.string(key) + 1 + measure(inner, m);
    members++;
  }
  return bytes + Math.max(0, members - 1);
}
