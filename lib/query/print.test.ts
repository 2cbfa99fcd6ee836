import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CompareOperator, Expression, OrderBy, Query, Value } from "./ast.ts";
import { RESERVED } from "./keywords.ts";
import { parseFilter, parseQuery } from "./parser.ts";
import { printExpression, printQuery, printValue } from "./print.ts";

const segment = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/).filter((name) => !RESERVED.has(name.toUpperCase()));
const field = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join("."));

// Quotes and backslashes are the characters printing must escape, so they are over-represented.
const text = fc.string({
  unit: fc.oneof(fc.constantFrom("'", '"', "\\", "%", "_", " ", "\n", "😀", "é"), fc.string({ minLength: 1, maxLength: 1 })),
  maxLength: 12,
});
const value: fc.Arbitrary<Value> = fc.oneof(
  text,
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  // Within DynamoDB's number range: the query language refuses anything else.
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e125, max: 1e125 }).filter((n) => n === 0 || Math.abs(n) >= 1e-130),
  fc.constantFrom(0.1, -2.5, 1e21, 1e-130, -0),
  fc.boolean(),
);
const operator = fc.constantFrom<CompareOperator>("=", "!=", "<", "<=", ">", ">=");

const { expression } = fc.letrec<{ expression: Expression }>((tie) => ({
  expression: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ kind: fc.constant("compare" as const), field, operator, value }),
    fc.record({ kind: fc.constant("like" as const), field, pattern: text }),
    fc.record({ kind: fc.constant("in" as const), field, values: fc.array(value, { minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant("contains" as const), field, value }),
    fc.record({ kind: fc.constant("isNull" as const), field, negated: fc.boolean() }),
    fc.record({ kind: fc.constant("not" as const), operand: tie("expression") }),
    fc.record({ kind: fc.constant("and" as const), operands: fc.array(tie("expression"), { minLength: 2, maxLength: 3 }) }),
    fc.record({ kind: fc.constant("or" as const), operands: fc.array(tie("expression"), { minLength: 2, maxLength: 3 }) }),
  ),
}));

const orderBy: fc.Arbitrary<OrderBy> = fc.record({ field, direction: fc.constantFrom("ASC" as const, "DESC" as const) });

const query: fc.Arbitrary<Query> = fc.record(
  {
    where: expression,
    orderBy: fc.array(orderBy, { maxLength: 3 }),
    limit: fc.integer({ min: 1, max: 10_000 }),
    offset: text,
  },
  { requiredKeys: ["orderBy"] },
);

describe("printQuery", () => {
  it("round-trips any query through the parser", () => {
    fc.assert(
      fc.property(query, (q) => {
        expect(parseQuery(printQuery(q))).toEqual(q);
      }),
      { numRuns: 1000 },
    );
  });

  it("round-trips any expression through parseFilter", () => {
    fc.assert(
      fc.property(expression, (e) => {
        expect(parseFilter(printExpression(e))).toEqual(e);
      }),
      { numRuns: 500 },
    );
  });

  it("parenthesises only where the tree needs it", () => {
    const a: Expression = { kind: "compare", field: "a", operator: "=", value: 1 };
    const b: Expression = { kind: "isNull", field: "b", negated: true };
    expect(printExpression({ kind: "or", operands: [a, { kind: "and", operands: [a, b] }] })).toBe("a = 1 OR a = 1 AND b IS NOT NULL");
    expect(printExpression({ kind: "and", operands: [{ kind: "or", operands: [a, b] }, a] })).toBe("(a = 1 OR b IS NOT NULL) AND a = 1");
    expect(printExpression({ kind: "not", operand: { kind: "and", operands: [a, b] } })).toBe("NOT (a = 1 AND b IS NOT NULL)");
    expect(printQuery({ orderBy: [] })).toBe("");
    expect(printQuery({ where: a, orderBy: [{ field: "x.y", direction: "DESC" }], limit: 2, offset: "t'" })).toBe(
      "a = 1 ORDER BY x.y DESC LIMIT 2 OFFSET 't\\''",
    );
  });

  it("escapes quotes and backslashes in strings", () => {
    expect(printValue("it's a \\ test")).toBe(String.raw`'it\'s a \\ test'`);
    expect(printValue(-0)).toBe("-0");
    expect(printValue(false)).toBe("FALSE");
  });

  it("refuses field names and numbers that cannot be written back", () => {
    expect(() => printExpression({ kind: "isNull", field: "a = 1 OR b", negated: false })).toThrow(TypeError);
    expect(() => printExpression({ kind: "isNull", field: "order", negated: false })).toThrow(TypeError);
    expect(() => printValue(Number.NaN)).toThrow(TypeError);
  });
});
