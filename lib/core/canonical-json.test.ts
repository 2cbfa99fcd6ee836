import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";

/** The same value with every object's keys inserted in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .reverse()
      .map((k) => [k, reversedKeys(record[k])]),
  );
}

/** The definition, written the plain way: every object's keys sorted, each member written in turn. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : reference(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((k) => record[k] !== undefined);
  return `{${members.map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(",")}}`;
}

describe("canonicalJson", () => {
  it("writes exactly the sorted-keys text, with index-like or __proto__ keys anywhere or not", () => {
    const key = fc.oneof(fc.string(), fc.constantFrom("0", "10", "9", "__proto__", "a", "b", "_"));
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: "small" },
        fc.jsonValue({ maxDepth: 0 }),
        fc.array(tie("json"), { maxLength: 4 }),
        fc.dictionary(key, tie("json"), { maxKeys: 6 }),
      ),
    })).json;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
        expect(canonicalJson(reversedKeys(v))).toBe(reference(v));
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves the value it writes untouched", () => {
    const value = { b: { d: 1, c: [{ f: 1, e: 2 }] }, a: 1 };
    const before = JSON.stringify(value);
    expect(canonicalJson(value)).toBe('{"a":1,"b":{"c":[{"e":2,"f":1}],"d":1}}');
    expect(JSON.stringify(value)).toBe(before);
  });

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
    expect(canonicalJson({ b: undefined, a: [undefined, 1], "0": 0, "": [], d: new Date(0), c: "x" })).toBe(
      '{"":[],"0":0,"a":[null,1],"c":"x","d":"1970-01-01T00:00:00.000Z"}',
    );
  });
});
