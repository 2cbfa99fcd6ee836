import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { likeShape, matchLike } from "./like.ts";

describe("matchLike", () => {
  it.each([
    ["abc", "abc", true],
    ["abc", "abcd", false],
    ["abc", "xabc", false],
    ["a%", "a", true],
    ["a%", "abc", true],
    ["a%", "ba", false],
    ["%c", "abc", true],
    ["%b%", "abc", true],
    ["%b%", "ac", false],
    ["a%c%e", "abcde", true],
    ["a%c%e", "abcdef", false],
    ["%", "", true],
    ["%%", "anything", true],
    ["", "", true],
    ["", "a", false],
    ["_", "a", true],
    ["_", "", false],
    ["_", "ab", false],
    ["a_c", "abc", true],
    ["a_c", "ac", false],
    ["_%_", "ab", true],
    ["_%_", "a", false],
    ["%a%a%a%b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false],
  ])("%j matches %j: %s", (pattern, value, expected) => {
    expect(matchLike(pattern, value)).toBe(expected);
  });

  it("is case-sensitive", () => {
    expect(matchLike("Abc%", "abcd")).toBe(false);
  });

  it("takes escaped wildcards and backslashes literally", () => {
    expect(matchLike("50\\%", "50%")).toBe(true);
    expect(matchLike("50\\%", "500")).toBe(false);
    expect(matchLike("a\\_b", "a_b")).toBe(true);
    expect(matchLike("a\\_b", "axb")).toBe(false);
    expect(matchLike("a\\\\%", "a\\bc")).toBe(true);
    expect(matchLike("a\\b", "a\\b")).toBe(true);
    expect(matchLike("end\\", "end\\")).toBe(true);
  });

  it("takes regular-expression metacharacters literally", () => {
    expect(matchLike("a.c", "abc")).toBe(false);
    expect(matchLike("a.c", "a.c")).toBe(true);
    expect(matchLike("(x|y)*+?[]{}^$", "(x|y)*+?[]{}^$")).toBe(true);
    expect(matchLike("^a$", "a")).toBe(false);
    expect(matchLike(".*", "anything")).toBe(false);
  });

  it("counts a character outside the BMP as one", () => {
    expect(matchLike("_", "😀")).toBe(true);
    expect(matchLike("a_b", "a😀b")).toBe(true);
  });
});

describe("likeShape", () => {
  it.each([
    ["abc", { kind: "exact", text: "abc" }],
    ["ab%", { kind: "prefix", text: "ab" }],
    ["ab%%", { kind: "prefix", text: "ab" }],
    ["50\\%%", { kind: "prefix", text: "50%" }],
    ["%ab%", { kind: "infix", text: "ab" }],
    ["%", { kind: "anyString" }],
    ["%%", { kind: "anyString" }],
    ["%ab", { kind: "other" }],
    ["a%b", { kind: "other" }],
    ["a_%", { kind: "other" }],
    ["a\\_%", { kind: "prefix", text: "a_" }],
  ])("%j", (pattern, shape) => {
    expect(likeShape(pattern)).toEqual(shape);
  });
});

describe("matchLike against an independent oracle", () => {
  /**
   * The rules of the header comment, written again without parseLikePattern: a classic dynamic
   * programme over code points (`fits[i][j]`: the first i pattern units match the first j
   * characters), so a bug in the tokenizer or the matcher cannot agree with itself.
   */
  function oracle(pattern: string, value: string): boolean {
    const units: ("%" | "_" | { literal: string })[] = [];
    const p = Array.from(pattern);
    for (let i = 0; i < p.length; i++) {
      if (p[i] === "\\" && ["%", "_", "\\"].includes(p[i + 1] ?? "")) units.push({ literal: p[++i] ?? "" });
      else if (p[i] === "%" || p[i] === "_") units.push(p[i] as "%" | "_");
      else units.push({ literal: p[i] ?? "" });
    }
    const v = Array.from(value);
    let row = v.map(() => false);
    row.unshift(true);
    for (const unit of units) {
      const next = [unit === "%" && row[0] === true];
      for (let j = 1; j <= v.length; j++) {
        if (unit === "%") next[j] = row[j] === true || next[j - 1] === true;
        else if (unit === "_") next[j] = row[j - 1] === true;
        else next[j] = row[j - 1] === true && v[j - 1] === unit.literal;
      }
      row = next;
    }
    return row[v.length] === true;
  }

  it("agrees on random patterns and values over a small alphabet", () => {
    const pattern = fc.string({ unit: fc.constantFrom("a", "b", "%", "_", "\\", "."), maxLength: 8 });
    const value = fc.string({ unit: fc.constantFrom("a", "b", "%", "_", "\\", ".", "😀"), maxLength: 10 });
    fc.assert(
      fc.property(pattern, value, (p, v) => {
        expect(matchLike(p, v)).toBe(oracle(p, v));
      }),
      { numRuns: 2000 },
    );
  });
});
