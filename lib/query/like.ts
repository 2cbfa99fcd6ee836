/**
 * LIKE patterns: `%` matches any run of characters (including none), `_` exactly one character
 * (a code point, so an emoji counts as one), everything else itself, case-sensitively. `\%`,
 * `\_` and `\\` stand for the literal character; a backslash before anything else is literal.
 */

import { MAX_LIKE_LENGTH, MAX_LIKE_WILDCARDS } from "./limits.ts";

export type LikeToken = { kind: "literal"; text: string } | { kind: "one" } | { kind: "any" };

export function parseLikePattern(pattern: string): LikeToken[] {
  const tokens: LikeToken[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] ?? "";
    const next = chars[i + 1];
    if (char === "\\" && (next === "%" || next === "_" || next === "\\")) {
      tokens.push({ kind: "literal", text: next });
      i++;
    } else if (char === "%") {
      // Consecutive runs mean the same as one and would only slow the matcher down.
      if (tokens.at(-1)?.kind !== "any") tokens.push({ kind: "any" });
    } else if (char === "_") {
      tokens.push({ kind: "one" });
    } else {
      tokens.push({ kind: "literal", text: char });
    }
  }
  return tokens;
}

/** Why a pattern is refused (too long, or too many wildcards), or undefined when it is accepted. */
export function likePatternProblem(pattern: string): string | undefined {
  const length = Array.from(pattern).length;
  if (length > MAX_LIKE_LENGTH) return `the LIKE pattern has ${length} characters; at most ${MAX_LIKE_LENGTH} are allowed`;
  const wildcards = parseLikePattern(pattern).filter((token) => token.kind !== "literal").length;
  if (wildcards > MAX_LIKE_WILDCARDS) return `the LIKE pattern has ${wildcards} wildcards; at most ${MAX_LIKE_WILDCARDS} are allowed`;
  return undefined;
}

/** How a pattern maps onto what DynamoDB can test without a regular expression. */
export type LikeShape =
  { kind: "exact"; text: string } | { kind: "prefix"; text: string } | { kind: "infix"; text: string } | { kind: "anyString" } | { kind: "other" };

export function likeShape(pattern: string): LikeShape {
  const tokens = parseLikePattern(pattern);
  if (tokens.some((token) => token.kind === "one")) return { kind: "other" };
  const leading = tokens[0]?.kind === "any";
  const trailing = tokens.length > (leading ? 1 : 0) && tokens.at(-1)?.kind === "any";
  const inner = tokens.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (inner.some((token) => token.kind !== "literal")) return { kind: "other" };
  const text = inner.map((token) => (token.kind === "literal" ? token.text : "")).join("");
  if (leading || trailing) {
    if (text === "") return { kind: "anyString" };
    if (leading && trailing) return { kind: "infix", text };
    return trailing ? { kind: "prefix", text } : { kind: "other" };
  }
  return { kind: "exact", text };
}
