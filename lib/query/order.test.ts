import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareForSort, compareStrings } from "./order.ts";

describe("compareStrings", () => {
  it("orders well-formed strings exactly as their UTF-8 bytes (DynamoDB's order)", () => {
    const text = fc.string({
      unit: fc.oneof(fc.constantFrom("a", "\uFF5E", "\uE000", "\u{1F600}", "\u{10000}"), fc.string({ unit: "grapheme", maxLength: 1 })),
      maxLength: 6,
    });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(compareStrings(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("compareForSort", () => {
  it("puts null before booleans before numbers before strings before the rest", () => {
    const values = ["b", [1], 2, null, true, "a", false, -1, { x: 1 }];
    expect([...values].sort(compareForSort)).toEqual([null, false, true, -1, 2, "a", "b", [1], { x: 1 }]);
  });
});
