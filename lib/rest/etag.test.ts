import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, etagOf, expectedVersion, notModified } from "./etag.ts";

/** The same value with every object's keys inserted in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).reverse().map((k) => [k, reversedKeys(record[k])]));
}

describe("etagOf", () => {
  it("gives one representation one tag whatever the order of its keys (a create's answer and DynamoDB's read)", () => {
    const created = etagOf(3, { slug: "a", title: "T", tags: [{ b: 1, a: 2 }], createdAt: "2026-01-01T00:00:00.000Z" });
    const read = etagOf(3, { createdAt: "2026-01-01T00:00:00.000Z", tags: [{ a: 2, b: 1 }], title: "T", slug: "a" });
    expect(read).toBe(created);
    expect(notModified(created, read)).toBe(true);
  });

  it("tells versions and views apart, and writes still pin the version alone", () => {
    const owner = etagOf(3, { uuid: "u", email: "a@example.com" });
    expect(etagOf(3, { uuid: "u" })).not.toBe(owner);
    expect(etagOf(4, { uuid: "u", email: "a@example.com" })).not.toBe(owner);
    expect(expectedVersion(owner)).toBe(3);
  });
});

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
