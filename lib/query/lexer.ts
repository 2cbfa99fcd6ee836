import type { CompareOperator } from "./ast.ts";
import { queryError } from "./fail.ts";

/** Columns are 1-based offsets in UTF-16 code units, as editors and browsers count them. */
export type Token =
  | { kind: "word"; text: string; column: number }
  | { kind: "string"; value: string; column: number }
  | { kind: "number"; value: number; text: string; column: number }
  | { kind: "punct"; text: "(" | ")" | "[" | "]" | ","; column: number }
  | { kind: "operator"; text: CompareOperator; column: number }
  | { kind: "end"; column: number };

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
const NUMBER = /-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /\s/;
const PUNCTUATION = new Set(["(", ")", "[", "]", ","]);

/** Backslash escapes only these; any other backslash stays, so LIKE sees `\%` and `\_` intact. */
const ESCAPABLE = new Set(["'", '"', "\\"]);

/** DynamoDB's number range: magnitudes from 1E-130 to below 1E+126 (and zero). */
const DYNAMODB_MAX = 1e126;
const DYNAMODB_MIN = 1e-130;

/**
 * A literal that no stored number can equal and that DynamoDB would refuse (`1e400` is Infinity in
 * JavaScript): told to the client rather than failing inside the store.
 */
export function numberProblem(value: number): string | undefined {
  if (!Number.isFinite(value)) return "is not a finite number";
  const magnitude = Math.abs(value);
  if (magnitude >= DYNAMODB_MAX || (magnitude !== 0 && magnitude < DYNAMODB_MIN)) {
    return "is outside the range a stored number can hold (magnitudes 1e-130 to below 1e126)";
  }
  return undefined;
}

/**
 * Tokens on demand: the parser pulls one at a time, so a filter refused early (a limit reached, a
 * syntax error) costs what was read up to there, not the whole text.
 */
export class Lexer {
  private i = 0;

  constructor(private readonly text: string) {}

  /** The next token; `end` once the text is used up, and again on every later call. */
  next(): Token {
    const text = this.text;
    while (this.i < text.length && WHITESPACE.test(text.charAt(this.i))) this.i++;
    if (this.i >= text.length) return { kind: "end", column: text.length + 1 };
    const i = this.i;
    const char = text.charAt(i);
    const column = i + 1;
    if (WORD_START.test(char)) {
      const end = scanWord(text, i);
      this.i = end;
      return { kind: "word", text: text.slice(i, end), column };
    }
    if (DIGIT.test(char) || (char === "-" && DIGIT.test(text.charAt(i + 1)))) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      const literal = match?.[0] ?? char;
      const value = Number(literal);
      const problem = numberProblem(value);
      if (problem) throw queryError(`the number ${literal} at column ${column} ${problem}`);
      this.i = i + literal.length;
      return { kind: "number", value, text: literal, column };
    }
    if (char === "'" || char === '"') {
      const [value, end] = scanString(text, i);
      this.i = end;
      return { kind: "string", value, column };
    }
    if (PUNCTUATION.has(char)) {
      this.i = i + 1;
      return { kind: "punct", text: char as "(" | ")" | "[" | "]" | ",", column };
    }
    const operator = scanOperator(text, i);
    if (operator === undefined) throw queryError(`unexpected character '${char}' at column ${column}`);
    this.i = i + operator.length;
    return { kind: "operator", text: operator, column };
  }
}

/** A dotted path is one token, so `a . b` (with spaces) is not a field. */
function scanWord(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    while (i < text.length && WORD_PART.test(text.charAt(i))) i++;
    if (text.charAt(i) !== ".") return i;
    if (!WORD_START.test(text.charAt(i + 1))) {
      throw queryError(`expected a field name after '.' at column ${i + 2}`);
    }
    i += 2;
  }
}

function scanString(text: string, start: number): [string, number] {
  const quote = text.charAt(start);
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const char = text.charAt(i);
    if (char === quote) return [value, i + 1];
    if (char === "\\" && ESCAPABLE.has(text.charAt(i + 1))) {
      value += text.charAt(i + 1);
      i += 2;
    } else {
      value += char;
      i++;
    }
  }
  throw queryError(`expected a closing ${quote} for the string that starts at column ${start + 1}`);
}

function scanOperator(text: string, i: number): CompareOperator | undefined {
  const two = text.slice(i, i + 2);
  if (two === "!=" || two === "<=" || two === ">=") return two;
  const one = text.charAt(i);
  if (one === "=" || one === "<" || one === ">") return one;
  return undefined;
}
