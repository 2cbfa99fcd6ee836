/**
 * Bounds on what one query may ask of the parser and the matcher, so a request's cost follows
 * what the caller asked, not the shape of its input (docs/query-language.md, "Limits").
 */

/** Levels of parentheses and NOT a filter may nest; deeper answers BAD_QUERY (a recursive parser would overflow its stack). */
export const MAX_NESTING = 32;

/** Characters (code points) in one LIKE pattern, escapes included. */
export const MAX_LIKE_LENGTH = 512;

/** Wildcards in one LIKE pattern: each `_`, and each run of `%` (a run means one `%`). The matcher's cost per value character grows with them. */
export const MAX_LIKE_WILDCARDS = 16;

/**
 * How wide one filter may be. Evaluating a filter on a record costs about its terms plus its IN
 * values (an OR of misses evaluates every branch), and that runs on each record a list reads (up
 * to the model's read budget) and on each event a subscription sees, so these bound what one
 * request may spend on matching. They are counted while parsing: a filter over one stops there,
 * before the rest of its text is even read.
 */
export interface FilterLimits {
  /** Predicates (`=`, `!=`, `<`..., `LIKE`, `IN`, `CONTAINS`, `IS [NOT] NULL`) in one filter. */
  terms: number;
  /** Operands of every OR in one filter, added up (`a OR b OR c` is 3). */
  orBranches: number;
  /** Values of every IN list in one filter, added up. */
  inValues: number;
}

/**
 * Far above what a person writes or a UI's facet builder generates (a handful of terms, a few
 * dozen at most); `inValues` lets one IN hold the ids of the largest page a list answers (1000).
 */
export const DEFAULT_FILTER_LIMITS: Readonly<FilterLimits> = { terms: 200, orBranches: 100, inValues: 1000 };
