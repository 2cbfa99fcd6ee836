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
