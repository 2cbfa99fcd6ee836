import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyItem } from "./copy.ts";

/** Every object and array reachable from `value`. */
function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (value !== null && typeof value === "object" && !into.has(value)) {
    into.add(value);
    for (const inner of Object.values(value)) containers(inner, into);
  }
  return into;
}

describe("copyItem", () => {
  it("copies any JSON value as structuredClone does, sharing no object or array with it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copied = copyItem(value);
        expect(copied).toStrictEqual(structuredClone(value));
        const originals = containers(value);
        for (const c of containers(copied)) expect(originals.has(c)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps an own __proto__ key a key, and copies what is not plain data through structuredClone", () => {
    const item = JSON.parse('{"__proto__":{"polluted":true},"at":null}') as Record<string, unknown>;
    item.at = new Date(0);
    item.tags = new Set(["a"]);
    item.bytes = new Uint8Array([1, 2]);
    const copied = copyItem(item);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(["__proto__", "at", "tags", "bytes"]);
    expect(copied).toStrictEqual(structuredClone(item));
    expect(copied.at).not.toBe(item.at);
    expect(copied.tags).not.toBe(item.tags);
  });

  it("copies a cycle as structuredClone does, and refuses a function as it does", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const copied = copyItem(cyclic);
    expect(copied.self).toBe(copied);
    expect(copied).not.toBe(cyclic);
    expect(() => copyItem({ f: () => 1 })).toThrow(expect.objectContaining({ name: "DataCloneError" }) as Error);
  });
});
