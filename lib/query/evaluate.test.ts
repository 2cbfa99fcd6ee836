import { describe, expect, it } from "vitest";
import type { Expression } from "./ast.ts";
import { compareRecords, evaluate, readField } from "./evaluate.ts";
import { parseFilter } from "./parser.ts";

function matches(filter: string, record: Record<string, unknown>): boolean {
  const expression = parseFilter(filter);
  if (expression === undefined) throw new Error("empty filter");
  return evaluate(expression, record);
}

const post = {
  title: "Hello",
  views: 10,
  draft: false,
  tags: ["a", "b", 3],
  author: { name: "Ann", address: { city: "Paris" } },
  deleted: null,
};

describe("evaluate: comparisons", () => {
  it.each([
    ["title = 'Hello'", true],
    ["title = 'hello'", false],
    ["views = 10", true],
    ["views = 10.0", true],
    ["views = '10'", false],
    ["draft = FALSE", true],
    ["draft = 0", false],
    ["views != 11", true],
    ["views != 10", false],
    ["views != '10'", true],
    ["views < 11", true],
    ["views <= 10", true],
    ["views > 10", false],
    ["views >= -1.5", true],
    ["title > 'Hell'", true],
    ["title < 'Help'", true],
    ["title < 5", false],
    ["title >= 5", false],
    ["draft < TRUE", false],
    ["author.name = 'Ann'", true],
    ["author.address.city = 'Paris'", true],
    ["author = 'Ann'", false],
    ["author != 'Ann'", true],
  ])("%s -> %s", (filter, expected) => {
    expect(matches(filter, post)).toBe(expected);
  });
});

describe("evaluate: missing and null", () => {
  it.each([
    ["missing = 1", false],
    ["missing != 1", true],
    ["missing < 1", false],
    ["missing >= 'a'", false],
    ["NOT missing < 3", true],
    ["missing LIKE '%'", false],
    ["missing IN [1, 'x']", false],
    ["missing CONTAINS 1", false],
    ["missing IS NULL", true],
    ["missing IS NOT NULL", false],
    ["deleted IS NULL", true],
    ["deleted IS NOT NULL", false],
    ["deleted = 'x'", false],
    ["deleted != 'x'", true],
    ["author.missing.deeper IS NULL", true],
    ["title.length IS NULL", true],
    ["tags.a IS NULL", true],
    ["title IS NOT NULL", true],
  ])("%s -> %s", (filter, expected) => {
    expect(matches(filter, post)).toBe(expected);
  });

  it("reads only own properties, never the prototype chain", () => {
    expect(readField({}, "constructor")).toBeNull();
    expect(matches("toString IS NULL", {})).toBe(true);
    expect(readField({ a: undefined }, "a")).toBeNull();
  });
});

describe("evaluate: LIKE, IN, CONTAINS", () => {
  it.each([
    ["title LIKE 'He%'", true],
    ["title LIKE 'he%'", false],
    ["title LIKE 'H_llo'", true],
    ["title LIKE 'Hell'", false],
    ["views LIKE '1%'", false],
    ["views IN [1, 10]", true],
    ["views IN ['10', 11]", false],
    ["title IN ['x', 'Hello']", true],
    ["tags CONTAINS 'a'", true],
    ["tags CONTAINS 3", true],
    ["tags CONTAINS '3'", false],
    ["tags CONTAINS 'c'", false],
    ["title CONTAINS 'ell'", false],
  ])("%s -> %s", (filter, expected) => {
    expect(matches(filter, post)).toBe(expected);
  });
});

describe("evaluate: logic", () => {
  it.each([
    ["views = 10 AND title = 'Hello'", true],
    ["views = 10 AND title = 'x'", false],
    ["views = 1 OR title = 'Hello'", true],
    ["views = 1 OR title = 'x' AND views = 10", false],
    ["(views = 1 OR title = 'Hello') AND views = 10", true],
    ["NOT views = 10", false],
    ["NOT NOT views = 10", true],
    ["NOT (views = 1 OR draft = TRUE)", true],
  ])("%s -> %s", (filter, expected) => {
    expect(matches(filter, post)).toBe(expected);
  });
});

describe("evaluate: string order", () => {
  it("orders by code point, as DynamoDB orders UTF-8 bytes", () => {
    // U+FF5E is a single UTF-16 unit above the surrogates that encode U+1F600.
    const expression: Expression = { kind: "compare", field: "s", operator: "<", value: "\u{1F600}" };
    expect(evaluate(expression, { s: "\uFF5E" })).toBe(true);
    expect("\uFF5E" < "\u{1F600}").toBe(false);
  });
});

describe("compareRecords", () => {
  it("sorts by each field in turn, with nulls first ascending", () => {
    const records = [
      { id: 1, a: "b", n: 2 },
      { id: 2, a: "a", n: 5 },
      { id: 3, n: 9 },
      { id: 4, a: "b", n: 1 },
      { id: 5, a: 7, n: 0 },
    ];
    const ascending = [...records].sort(
      compareRecords([
        { field: "a", direction: "ASC" },
        { field: "n", direction: "DESC" },
      ]),
    );
    expect(ascending.map((record) => record.id)).toEqual([3, 5, 2, 1, 4]);
    const descending = [...records].sort(compareRecords([{ field: "a", direction: "DESC" }]));
    expect(descending.map((record) => record.id)).toEqual([1, 4, 2, 5, 3]);
  });

  it("sorts nested fields and booleans", () => {
    const records = [{ x: { y: true } }, { x: { y: false } }];
    expect([...records].sort(compareRecords([{ field: "x.y", direction: "ASC" }]))).toEqual([{ x: { y: false } }, { x: { y: true } }]);
  });
});
