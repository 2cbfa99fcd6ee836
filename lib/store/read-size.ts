import { KEPT, MAX_PAGE, SEEN } from "./dynamodb-cursor.ts";
import type { Cursor } from "./repository.ts";

/**
 * What a listing has measured of its filter so far: of `seen` records DynamoDB evaluated, `kept`
 * passed the filter and the read permission. It rides in the continuation token, so that the next
 * page reads about what it needs from the first call on.
 */
export interface Selectivity {
  kept: number;
  seen: number;
}

/**
 * Past this many records the estimate is scaled down before it is carried: recent pages weigh as
 * much as old ones (an ordered listing crosses stretches of different density), and the token
 * stays small whatever its history.
 */
const SEEN_CAP = 2 * MAX_PAGE;

/**
 * The prior before anything is measured, worth two records: a filter is taken to keep half of what
 * it reads (the first read is twice the page, then the measure takes over); a listing without a
 * filter keeps all (a plain page reads exactly limit + 1).
 */
const PRIOR_FILTERED: Selectivity = { kept: 1, seen: 2 };
const PRIOR_UNFILTERED: Selectivity = { kept: 2, seen: 2 };

export const NO_MEASURE: Selectivity = { kept: 0, seen: 0 };

/**
 * The estimate a cursor carries, or none. A token is sealed, but its estimate is still read as
 * untrusted: any value out of range counts as no measure, and whatever it says, a read stays
 * within MAX_PAGE and the read budget (`readSize`).
 */
export function carriedSelectivity(cursor: Cursor | undefined): Selectivity {
  const kept = cursor?.[KEPT];
  const seen = cursor?.[SEEN];
  if (typeof kept !== "number" || typeof seen !== "number") return NO_MEASURE;
  if (!Number.isFinite(kept) || !Number.isFinite(seen) || kept < 0 || seen < kept || seen > SEEN_CAP) return NO_MEASURE;
  return { kept, seen };
}

/** `a` and `b` together, scaled down to at most SEEN_CAP records. */
export function addSelectivity(a: Selectivity, b: Selectivity): Selectivity {
  const kept = a.kept + b.kept;
  const seen = a.seen + b.seen;
  if (seen <= SEEN_CAP) return { kept, seen };
  const scale = SEEN_CAP / seen;
  return { kept: Math.round(kept * scale), seen: SEEN_CAP };
}

/** The cursor entries that carry `s` (none when nothing was measured). */
export function selectivityEntries(s: Selectivity): Cursor {
  return s.seen > 0 ? { [KEPT]: s.kept, [SEEN]: s.seen } : {};
}

/**
 * How many records the next call asks DynamoDB to evaluate (its `Limit`) when `need` more must pass
 * the filter: `need` over the estimated share kept, between `need` and MAX_PAGE, and never past
 * what is left of the read budget.
 */
export function readSize(need: number, measured: Selectivity, filtered: boolean, budget: number): number {
  const prior = filtered ? PRIOR_FILTERED : PRIOR_UNFILTERED;
  const share = (measured.kept + prior.kept) / (measured.seen + prior.seen);
  const size = Math.min(MAX_PAGE, Math.max(need, Math.ceil(need / share)));
  return Math.max(1, Math.min(size, budget));
}
