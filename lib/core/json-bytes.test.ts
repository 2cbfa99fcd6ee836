import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonBytes, payloadBytes } from "./json-bytes.ts";

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "");

describe("jsonBytes", () => {
  it("is the UTF-8 length of JSON.stringify's text for any JSON value, any string", () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme" }),
      fc.constantFrom('"', "\\", "\u007f", "\u2028", "\ud800", "\udc00x", "\n\t\u0001"),
    );
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: "small" },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("json"), { maxLength: 4 }),
        fc.dictionary(text, tie("json"), { maxKeys: 5 }),
      ),
    })).json;
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonBytes(v)).toBe(bytesOf(v));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(jsonBytes(v)).toBe(bytesOf(v));
      }),
      { numRuns: 1000 },
    );
  });

  it("leaves out what JSON.stringify leaves out, writes null where it does, and follows toJSON", () => {
    const value = { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol("s"), Number.NaN, -0, 1e21], d: new Date(0), e: Buffer.from("hi") };
    expect(jsonBytes(value)).toBe(bytesOf(value));
    expect(jsonBytes({})).toBe(2);
    expect(jsonBytes([])).toBe(2);
    expect(jsonBytes(undefined)).toBe(0);
  });
});

describe("payloadBytes", () => {
  const payloadOf = (value: unknown): number => {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : Buffer.byteLength(JSON.stringify(text)) - 2;
  };

  it("is what the JSON text takes inside another JSON string (a Lambda response's body), for any value", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom('"', "\\", "\u0001", "\u2028", "\ud800", 'a"b\\c'));
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: "small" },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("json"), { maxLength: 4 }),
        fc.dictionary(text, tie("json"), { maxKeys: 5 }),
      ),
    })).json;
    fc.assert(
      fc.property(value, (v) => {
        expect(payloadBytes(v)).toBe(payloadOf(v));
      }),
      { numRuns: 3000 },
    );
    const special = { d: new Date(0), e: Buffer.from("hi"), c: [undefined, Number.NaN] };
    expect(payloadBytes(special)).toBe(payloadOf(special));
  });

  it("exceeds the JSON's own size by every quote and backslash: a record of control characters by a sixth", () => {
    const record = { content: "\u0001".repeat(1000) };
    expect(jsonBytes(record)).toBe(6000 + 14);
    expect(payloadBytes(record)).toBe(7000 + 18);
  });
});
