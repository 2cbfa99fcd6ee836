import { parseLikePattern } from "./like.ts";

/**
 * LIKE matching in time linear in the value and the pattern, whatever the pattern.
 *
 * A backtracking matcher (restart after the last `%` on every mismatch) costs value × pattern on
 * `%aaaa…a_b` against a long run of `a`: the issue measured 19 s for one request. Instead:
 *
 * - the pattern is cut at each `%` into segments of fixed length (literals and `_`);
 * - the first segment must fit at the start, the last at the end;
 * - each middle segment is placed at its leftmost fit after the previous one (taking the leftmost
 *   fit never loses a match: anything a later fit allows, an earlier one allows too);
 * - the leftmost fit of a segment is found in one left-to-right pass: each run of literals inside
 *   it (its "pieces", split by `_`) runs its own Knuth-Morris-Pratt automaton, and every occurrence
 *   of a piece votes for the segment start it implies; a start with one vote per piece fits.
 *
 * The passes of successive segments never overlap, so the whole match costs about
 * `value × (pieces of the largest segment) + pattern`; the parser caps wildcards
 * (`MAX_LIKE_WILDCARDS`), which caps pieces.
 */

/** Counts the matcher's elementary steps, so tests can check the bound without a clock. */
export interface LikeMeter {
  steps: number;
}

/** A code point, or `null` for `_` (any one code point). */
type Unit = string | null;

interface Piece {
  /** Where the piece starts inside its segment. */
  offset: number;
  chars: string[];
  /** KMP failure function: the longest proper border of `chars[0..i]`. */
  border: Int32Array;
}

interface Segment {
  units: Unit[];
  pieces: Piece[];
}

export interface LikeMatcher {
  test(value: string, meter?: LikeMeter): boolean;
}

export function compileLike(pattern: string): LikeMatcher {
  const segments: Segment[] = [];
  let units: Unit[] = [];
  for (const token of parseLikePattern(pattern)) {
    if (token.kind === "any") {
      segments.push(segment(units));
      units = [];
    } else {
      units.push(token.kind === "one" ? null : token.text);
    }
  }
  segments.push(segment(units));
  return { test: (value, meter) => matches(segments, Array.from(value), meter) };
}

/** Whole-string match; see the header for the rules' cost. */
export function matchLike(pattern: string, value: string, meter?: LikeMeter): boolean {
  return compileLike(pattern).test(value, meter);
}

function matches(segments: readonly Segment[], chars: readonly string[], meter: LikeMeter | undefined): boolean {
  const first = segments[0] as Segment;
  if (segments.length === 1) return first.units.length === chars.length && fitsAt(first, chars, 0, meter);
  const last = segments.at(-1) as Segment;
  let from = first.units.length;
  const end = chars.length - last.units.length;
  if (end < from || !fitsAt(first, chars, 0, meter) || !fitsAt(last, chars, end, meter)) return false;
  for (let i = 1; i < segments.length - 1; i++) {
    const middle = segments[i] as Segment;
    const start = leftmostFit(middle, chars, from, end, meter);
    if (start < 0) return false;
    from = start + middle.units.length;
  }
  return true;
}

function fitsAt(seg: Segment, chars: readonly string[], at: number, meter: LikeMeter | undefined): boolean {
  const { units } = seg;
  if (meter) meter.steps += units.length;
  for (let i = 0; i < units.length; i++) {
    const unit = units[i];
    if (unit !== null && unit !== chars[at + i]) return false;
  }
  return true;
}

/** The smallest `s` in `[from, end - length]` where the segment fits, or -1. */
function leftmostFit(seg: Segment, chars: readonly string[], from: number, end: number, meter: LikeMeter | undefined): number {
  const length = seg.units.length;
  const { pieces } = seg;
  if (pieces.length === 0) return from + length <= end ? from : -1;
  // Votes for the starts still open (the last `length` ones), in a ring indexed by start % length.
  const votes = new Int32Array(length);
  const states = new Int32Array(pieces.length);
  let steps = 0;
  let found = -1;
  for (let e = from; e < end; e++) {
    votes[e % length] = 0;
    const char = chars[e];
    for (let j = 0; j < pieces.length; j++) {
      const piece = pieces[j] as Piece;
      let state = states[j] as number;
      while (state > 0 && piece.chars[state] !== char) {
        state = piece.border[state - 1] as number;
        steps++;
      }
      steps++;
      if (piece.chars[state] === char) state++;
      if (state === piece.chars.length) {
        const start = e - state + 1 - piece.offset;
        if (start >= from) votes[start % length] = (votes[start % length] as number) + 1;
        state = piece.border[state - 1] as number;
      }
      states[j] = state;
    }
    // Every piece of the start that closes here has voted by now.
    const closing = e - length + 1;
    if (closing >= from && votes[closing % length] === pieces.length) {
      found = closing;
      break;
    }
  }
  if (meter) meter.steps += steps;
  return found;
}

function segment(units: Unit[]): Segment {
  const pieces: Piece[] = [];
  let start = -1;
  for (let i = 0; i <= units.length; i++) {
    const literal = i < units.length && units[i] !== null;
    if (literal && start < 0) start = i;
    if (!literal && start >= 0) {
      const chars = units.slice(start, i) as string[];
      pieces.push({ offset: start, chars, border: borders(chars) });
      start = -1;
    }
  }
  return { units, pieces };
}

function borders(chars: readonly string[]): Int32Array {
  const border = new Int32Array(chars.length);
  let k = 0;
  for (let i = 1; i < chars.length; i++) {
    while (k > 0 && chars[i] !== chars[k]) k = border[k - 1] as number;
    if (chars[i] === chars[k]) k++;
    border[i] = k;
  }
  return border;
}
