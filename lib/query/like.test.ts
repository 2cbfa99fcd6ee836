import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { likeShape, parseLikePattern } from "./like.ts";
import { matchLike, type LikeMeter } from "./like-match.ts";

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

/**
 * The matcher this one replaced (a backtracking two-pointer loop that restarts after the last `%`
 * on each mismatch), kept here as a reference: its answers are right, its cost is pattern × value.
 * It counts its steps with the same meter so the bound below can be shown to tell the two apart.
 */
function backtrackingMatch(pattern: string, value: string, meter: LikeMeter): boolean {
  const tokens = parseLikePattern(pattern);
  const chars = Array.from(value);
  let t = 0;
  let c = 0;
  let starToken = -1;
  let starChar = 0;
  while (c < chars.length) {
    meter.steps++;
    const token = tokens[t];
    if (token !== undefined && token.kind !== "any" && (token.kind === "one" || token.text === chars[c])) {
      t++;
      c++;
    } else if (token?.kind === "any") {
      starToken = t++;
      starChar = c;
    } else if (starToken >= 0) {
      t = starToken + 1;
      c = ++starChar;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === "any") t++;
  return t === tokens.length;
}

describe("matchLike against the backtracking matcher it replaced", () => {
  it("gives the same answers on random patterns and values", () => {
    const pattern = fc.string({ unit: fc.constantFrom("a", "b", "%", "_", "\\"), maxLength: 12 });
    const value = fc.string({ unit: fc.constantFrom("a", "b", "%", "_", "\\", "😀"), maxLength: 24 });
    fc.assert(
      fc.property(pattern, value, (p, v) => {
        expect(matchLike(p, v)).toBe(backtrackingMatch(p, v, { steps: 0 }));
      }),
      { numRuns: 5000 },
    );
  });

  it("gives the same answers on values built to fit the pattern", () => {
    // Random values rarely match long patterns; these are the pattern with its wildcards filled.
    const unit = fc.constantFrom("a", "b", "ab", "%", "_");
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 10 }), fc.array(fc.constantFrom("", "a", "b", "ba", "aab"), { minLength: 10, maxLength: 10 }), (units, fills) => {
        const p = units.join("");
        const v = units.map((u, i) => (u === "%" ? (fills[i] ?? "") : u === "_" ? "b" : u)).join("");
        expect(matchLike(p, v)).toBe(true);
        expect(backtrackingMatch(p, v, { steps: 0 })).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("matchLike cost", () => {
  // Steps per (value + pattern) character allowed for a pattern with `w` wildcards.
  const bound = (pattern: string, value: string): number => {
    const wildcards = Array.from(pattern).filter((c) => c === "%" || c === "_").length;
    return 4 * (wildcards + 1) * (Array.from(value).length + Array.from(pattern).length);
  };

  it.each([
    ["%" + "a".repeat(4000) + "_b", "a".repeat(20_000)],
    ["%" + "a".repeat(1000) + "%b", "a".repeat(20_000)],
    ["%a%a%a%a%a%a%a%a%b", "a".repeat(20_000)],
    ["%" + "ab".repeat(500) + "c%", "ab".repeat(10_000)],
    ["%a_a_a_a_a_a_a_a_c", "a".repeat(20_000)],
  ])("stays within a linear bound on a pathological pattern (#%#)", (pattern, value) => {
    const meter: LikeMeter = { steps: 0 };
    expect(matchLike(pattern, value, meter)).toBe(false);
    expect(meter.steps).toBeLessThanOrEqual(bound(pattern, value));
  });

  it("the bound tells the replaced matcher apart (it exceeds it many times over)", () => {
    const pattern = "%" + "a".repeat(1000) + "_b";
    const value = "a".repeat(5000);
    const meter: LikeMeter = { steps: 0 };
    expect(backtrackingMatch(pattern, value, meter)).toBe(false);
    expect(meter.steps).toBeGreaterThan(20 * bound(pattern, value));
  });

  it("grows linearly with the value: ten times the value, at most ten times the steps", () => {
    const pattern = "%" + "a".repeat(50) + "_b%c";
    const steps = (n: number): number => {
      const meter: LikeMeter = { steps: 0 };
      matchLike(pattern, "a".repeat(n), meter);
      return meter.steps;
    };
    expect(steps(100_000)).toBeLessThanOrEqual(10 * steps(10_000) + 1000);
  });
});
