import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";

/** The same value with every object's keys inserted in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).reverse().map((k) => [k, reversedKeys(record[k])]));
}

describe("canonicalJson", () => {
  it("is JSON of the same value, whatever order its keys were inserted in", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reversedKeys(value))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts every object's keys, integer-like ones too, leaves out undefined members, writes null for undefined items, and uses toJSON", () => {
    expect(canonicalJson({ b: undefined, a: [undefined, 1], "0": 0, "": [], d: new Date(0), c: "x" })).toBe('{"":[],"0":0,"a":[null,1],"c":"x","d":"1970-01-01T00:00:00.000Z"}');
  });
});
