import { describe, expect, it } from "vitest";
import { QueryError } from "./fail.ts";
import type { Expression } from "./ast.ts";
import { parseFilter, parseQuery } from "./parser.ts";
import { columnOf } from "./positions.ts";
import { DEFAULT_FILTER_LIMITS, MAX_LIKE_LENGTH, MAX_LIKE_WILDCARDS, MAX_NESTING } from "./limits.ts";

function where(text: string): Expression | undefined {
  return parseQuery(text).where;
}

function syntaxError(text: string): QueryError {
  try {
    parseQuery(text);
  } catch (error) {
    if (error instanceof QueryError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe("parseQuery: predicates", () => {
  it.each([
    ["a = 1", "=", 1],
    ["a != 'x'", "!=", "x"],
    ["a < 2.5", "<", 2.5],
    ["a <= -3", "<=", -3],
    ["a > -0.25", ">", -0.25],
    ["a >= TRUE", ">=", true],
    ["a = false", "=", false],
    ['a = "dq"', "=", "dq"],
    ["a = 1e3", "=", 1000],
  ])("%s", (text, operator, value) => {
    expect(where(text)).toEqual({ kind: "compare", field: "a", operator, value });
  });

  it("reads operators written without spaces", () => {
    expect(where("a>=-5")).toEqual({ kind: "compare", field: "a", operator: ">=", value: -5 });
    expect(where("a!='x'")).toEqual({ kind: "compare", field: "a", operator: "!=", value: "x" });
  });

  it("LIKE, IN, CONTAINS, IS [NOT] NULL", () => {
    expect(where("title LIKE 'a%_'")).toEqual({ kind: "like", field: "title", pattern: "a%_" });
    expect(where("n IN [1, 'two', TRUE, -4.5]")).toEqual({ kind: "in", field: "n", values: [1, "two", true, -4.5] });
    expect(where("tags CONTAINS 'x'")).toEqual({ kind: "contains", field: "tags", value: "x" });
    expect(where("a IS NULL")).toEqual({ kind: "isNull", field: "a", negated: false });
    expect(where("a IS NOT NULL")).toEqual({ kind: "isNull", field: "a", negated: true });
  });

  it("dotted fields reach nested attributes", () => {
    expect(where("author.address.city = 'Paris'")).toEqual({
      kind: "compare",
      field: "author.address.city",
      operator: "=",
      value: "Paris",
    });
  });

  it("keywords are case-insensitive, field names are not", () => {
    expect(parseQuery("Status = 'x' aNd b iS nOt NuLl order BY Title desc limit 3 offset 't'")).toEqual({
      where: {
        kind: "and",
        operands: [
          { kind: "compare", field: "Status", operator: "=", value: "x" },
          { kind: "isNull", field: "b", negated: true },
        ],
      },
      orderBy: [{ field: "Title", direction: "DESC" }],
      limit: 3,
      offset: "t",
    });
  });

  it("unescapes quotes and backslashes, keeps other backslashes for LIKE", () => {
    expect(where(String.raw`a = 'it\'s'`)).toMatchObject({ value: "it's" });
    expect(where(String.raw`a = "say \"hi\""`)).toMatchObject({ value: 'say "hi"' });
    expect(where(String.raw`a = 'back\\slash'`)).toMatchObject({ value: "back\\slash" });
    expect(where(String.raw`a = 'mixed "q" \' '`)).toMatchObject({ value: `mixed "q" ' ` });
    expect(where(String.raw`a LIKE '50\%'`)).toMatchObject({ pattern: "50\\%" });
    expect(where("a = ''")).toMatchObject({ value: "" });
  });
});

describe("parseQuery: structure", () => {
  const a = { kind: "compare", field: "a", operator: "=", value: 1 } as const;
  const b = { kind: "compare", field: "b", operator: "=", value: 2 } as const;
  const c = { kind: "compare", field: "c", operator: "=", value: 3 } as const;

  it("AND binds tighter than OR", () => {
    expect(where("a = 1 OR b = 2 AND c = 3")).toEqual({ kind: "or", operands: [a, { kind: "and", operands: [b, c] }] });
    expect(where("a = 1 AND b = 2 OR c = 3")).toEqual({ kind: "or", operands: [{ kind: "and", operands: [a, b] }, c] });
  });

  it("chains of one operator form one n-ary node", () => {
    expect(where("a = 1 AND b = 2 AND c = 3")).toEqual({ kind: "and", operands: [a, b, c] });
    expect(where("a = 1 OR b = 2 OR c = 3")).toEqual({ kind: "or", operands: [a, b, c] });
  });

  it("parentheses group and keep their own node", () => {
    expect(where("(a = 1 OR b = 2) AND c = 3")).toEqual({ kind: "and", operands: [{ kind: "or", operands: [a, b] }, c] });
    expect(where("a = 1 AND (b = 2 AND c = 3)")).toEqual({ kind: "and", operands: [a, { kind: "and", operands: [b, c] }] });
    expect(where("((a = 1))")).toEqual(a);
  });

  it("NOT binds tighter than AND and can repeat", () => {
    expect(where("NOT a = 1 AND b = 2")).toEqual({ kind: "and", operands: [{ kind: "not", operand: a }, b] });
    expect(where("NOT (a = 1 AND b = 2)")).toEqual({ kind: "not", operand: { kind: "and", operands: [a, b] } });
    expect(where("not NOT a = 1")).toEqual({ kind: "not", operand: { kind: "not", operand: a } });
  });

  it("empty or blank text means every record", () => {
    expect(parseQuery("")).toEqual({ orderBy: [] });
    expect(parseQuery("  \n\t ")).toEqual({ orderBy: [] });
  });

  it("ORDER BY, LIMIT and OFFSET stand alone or together", () => {
    expect(parseQuery("ORDER BY a, b.c DESC, d ASC")).toEqual({
      orderBy: [
        { field: "a", direction: "ASC" },
        { field: "b.c", direction: "DESC" },
        { field: "d", direction: "ASC" },
      ],
    });
    expect(parseQuery("LIMIT 10")).toEqual({ orderBy: [], limit: 10 });
    expect(parseQuery("OFFSET 'abc=='")).toEqual({ orderBy: [], offset: "abc==" });
    expect(parseQuery('a = 1 LIMIT 5 OFFSET "t"')).toEqual({ where: a, orderBy: [], limit: 5, offset: "t" });
  });

  it("BY, ASC and DESC may name fields", () => {
    expect(parseQuery("desc = 1 ORDER BY asc DESC")).toEqual({
      where: { kind: "compare", field: "desc", operator: "=", value: 1 },
      orderBy: [{ field: "asc", direction: "DESC" }],
    });
  });

  it("records the column of each predicate's field", () => {
    const parsed = parseQuery("a = 1 AND  bb.c = 2 ORDER BY z");
    const operands = parsed.where?.kind === "and" ? parsed.where.operands : [];
    expect(operands.map((operand) => columnOf(operand))).toEqual([1, 12]);
    expect(parsed.orderBy.map((order) => columnOf(order))).toEqual([30]);
  });
});

describe("parseQuery: errors", () => {
  it.each([
    ["status = ", "expected a value after '=' at column 10"],
    ["status = AND", "expected a value after '=' at column 10, found 'AND'"],
    ["a = NULL", "expected a value after '=' at column 5, found 'NULL' (use IS NULL to test for null)"],
    ["title = 'abc", "expected a closing ' for the string that starts at column 9"],
    ['title = "abc\\"', 'expected a closing " for the string that starts at column 9'],
    ["a = 1 # b", "unexpected character '#' at column 7"],
    ["a = 1 b", "expected AND, OR, ORDER BY, LIMIT, OFFSET or the end of the query at column 7, found 'b'"],
    ["a = 1 LIMIT 3 ORDER BY a", "expected OFFSET or the end of the query at column 15, found 'ORDER'"],
    ["ORDER BY a b", "expected ',', LIMIT, OFFSET or the end of the query at column 12, found 'b'"],
    ["a IN 1, 2", "expected '[' after IN at column 6, found '1'"],
    ["a IN [1, 2", "expected ',' or ']' at column 11"],
    ["a IN []", "expected a value after '[' at column 7, found ']'"],
    ["LIMIT 2.5", "expected a positive integer after LIMIT at column 7, found '2.5'"],
    ["LIMIT -1", "expected a positive integer after LIMIT at column 7, found '-1'"],
    ["LIMIT 0", "expected a positive integer after LIMIT at column 7, found '0'"],
    ["LIMIT 'x'", 'expected a positive integer after LIMIT at column 7, found the string "x"'],
    ["OFFSET 5", "expected a quoted token after OFFSET at column 8, found '5'"],
    ["ORDER a", "expected BY after ORDER at column 7, found 'a'"],
    ["ORDER BY", "expected a field name after ORDER BY at column 9"],
    ["(a = 1", "expected AND, OR or ')' at column 7"],
    ["a = 1 AND", "expected a field name, NOT or '(' at column 10"],
    ["a", "expected an operator (=, !=, <, <=, >, >=, LIKE, IN, CONTAINS or IS) after 'a' at column 2"],
    ["a LIKE b", "expected a quoted pattern after LIKE at column 8, found 'b'"],
    ["a IS 'x'", 'expected NULL or NOT after IS at column 6, found the string "x"'],
    ["a. = 1", "expected a field name after '.' at column 3"],
    ["limit = 1", "expected a positive integer after LIMIT at column 7, found '='"],
    ["in = 1", "expected a field name, NOT or '(' at column 1, found 'in'"],
    ["a = - 1", "unexpected character '-' at column 5"],
  ])("%s", (text, message) => {
    const error = syntaxError(text);
    expect(error.message).toBe(message);
    expect(error.errors).toEqual([{ path: "/q", message }]);
  });
});

describe("parseFilter", () => {
  it("parses a bare expression and treats blank text as no filter", () => {
    expect(parseFilter("a = 1 OR b = 2")).toEqual(parseQuery("a = 1 OR b = 2").where);
    expect(parseFilter("   ")).toBeUndefined();
  });

  it("refuses query clauses", () => {
    expect(() => parseFilter("a = 1 ORDER BY a")).toThrow("expected AND, OR or the end of the filter at column 7, found 'ORDER'");
  });
});

describe("parseQuery: bounded nesting and LIKE patterns", () => {
  it("accepts nesting up to the limit", () => {
    const parens = "(".repeat(MAX_NESTING) + "a = 1" + ")".repeat(MAX_NESTING);
    expect(where(parens)).toEqual({ kind: "compare", field: "a", operator: "=", value: 1 });
    const nots = "NOT ".repeat(MAX_NESTING) + "a = 1";
    expect(where(nots)).toBeDefined();
    const mixed = "NOT (".repeat(MAX_NESTING / 2) + "a = 1" + ")".repeat(MAX_NESTING / 2);
    expect(where(mixed)).toBeDefined();
  });

  it("refuses one level more with BAD_QUERY at the opening column", () => {
    const text = "(".repeat(MAX_NESTING + 1) + "a = 1" + ")".repeat(MAX_NESTING + 1);
    const message = `the filter nests more than ${MAX_NESTING} levels of parentheses and NOT at column ${MAX_NESTING + 1}`;
    const error = syntaxError(text);
    expect(error.message).toBe(message);
    expect(error.errors).toEqual([{ path: "/q", message }]);
  });

  it.each([
    ["15,000 parentheses", "(".repeat(15_000) + "a = 1" + ")".repeat(15_000)],
    ["NOT 20,000 times", "NOT ".repeat(20_000) + "a = 1"],
    ["unclosed parentheses", "(".repeat(100_000)],
  ])("answers BAD_QUERY, not a stack overflow, to %s", (_name, text) => {
    // On the old parser these threw RangeError (Maximum call stack size exceeded): a 500.
    expect(syntaxError(text).code).toBe("BAD_QUERY");
    expect(() => parseFilter(text)).toThrow(/nests more than/);
  });

  it("refuses a LIKE pattern longer than the maximum, counting code points", () => {
    expect(where(`a LIKE '${"😀".repeat(MAX_LIKE_LENGTH)}'`)).toBeDefined();
    expect(syntaxError(`a LIKE '${"x".repeat(MAX_LIKE_LENGTH + 1)}'`).message).toBe(
      `the LIKE pattern has ${MAX_LIKE_LENGTH + 1} characters; at most ${MAX_LIKE_LENGTH} are allowed at column 8`,
    );
  });

  it("refuses more wildcards than the maximum; a run of % counts once, escaped ones not at all", () => {
    const atLimit = "%_".repeat(MAX_LIKE_WILDCARDS / 2);
    expect(where(`a LIKE '${atLimit}'`)).toBeDefined();
    expect(where(`a LIKE '${"%%%".repeat(1) + "\\\\%".repeat(50) + "_".repeat(MAX_LIKE_WILDCARDS - 1)}'`)).toBeDefined();
    expect(syntaxError(`a LIKE '${atLimit}_'`).message).toBe(
      `the LIKE pattern has ${MAX_LIKE_WILDCARDS + 1} wildcards; at most ${MAX_LIKE_WILDCARDS} are allowed at column 8`,
    );
  });
});

describe("parseQuery: bounded width (terms, OR branches, IN values)", () => {
  const { terms, orBranches, inValues } = DEFAULT_FILTER_LIMITS;
  const join = (n: number, make: (i: number) => string, by: string) => Array.from({ length: n }, (_, i) => make(i)).join(by);

  it("accepts each up to its limit, nested or not: the limits count the whole filter", () => {
    expect(where(join(orBranches, (i) => `a = ${i}`, " OR "))).toMatchObject({ kind: "or" });
    expect(where(join(terms, (i) => `a != ${i}`, " AND "))).toMatchObject({ kind: "and" });
    expect(where(`a IN [${join(inValues, (i) => `${i}`, ", ")}]`)).toMatchObject({ kind: "in" });
    // Branches of several ORs add up: 2 x 50 is at the limit, one more is past it.
    const half = `(${join(orBranches / 2, (i) => `a = ${i}`, " OR ")})`;
    expect(where(`${half} AND ${half}`)).toBeDefined();
    expect(syntaxError(`${half} AND ${half} AND (b = 1 OR b = 2)`).message).toMatch(`more than ${orBranches} OR branches`);
  });

  it("refuses one more with BAD_QUERY naming the limit, at the column where it was passed", () => {
    const branches = join(orBranches, (i) => `a = ${i}`, " OR ");
    expect(syntaxError(`${branches} OR a = 1`).errors).toEqual([
      { path: "/q", message: `the filter has more than ${orBranches} OR branches; at most ${orBranches} are allowed at column ${branches.length + 2}` },
    ]);
    const conjuncts = join(terms, (i) => `a != ${i}`, " AND ");
    expect(syntaxError(`${conjuncts} AND b IS NULL`).message).toBe(
      `the filter has more than ${terms} terms (comparisons, LIKE, IN, CONTAINS, IS NULL); at most ${terms} are allowed at column ${conjuncts.length + 6}`,
    );
    const list = `a IN [${join(inValues, () => "'v'", ", ")}`;
    expect(syntaxError(`${list}, 'w']`).message).toBe(
      `the filter has more than ${inValues} IN values; at most ${inValues} are allowed at column ${list.length + 3}`,
    );
  });

  it("stops reading at the limit: what follows is never tokenized", () => {
    // An unterminated string at the end would be the error if the whole text were read first.
    const text = `${join(61_000, () => "a = 'x'", " OR ")} OR a = 'unterminated`;
    expect(syntaxError(text).message).toMatch(`more than ${orBranches} OR branches`);
    expect(() => parseFilter(`${join(terms + 1, () => "a = 1", " AND ")} AND a = 1e999`)).toThrow(`more than ${terms} terms`);
  });

  it("takes other limits from the caller", () => {
    expect(() => parseFilter("a = 1 OR a = 2 OR a = 3", { orBranches: 2 })).toThrow(
      "the filter has more than 2 OR branches; at most 2 are allowed at column 16",
    );
    expect(parseFilter("a IN [1, 2, 3]", { inValues: 3 })).toBeDefined();
    expect(() => parseQuery("a IN [1, 2, 3] LIMIT 5", { inValues: 2 })).toThrow("more than 2 IN values");
    expect(
      parseQuery(
        join(500, (i) => `a = ${i}`, " OR "),
        { orBranches: 500, terms: 500 },
      ).where,
    ).toMatchObject({ kind: "or" });
  });
});
