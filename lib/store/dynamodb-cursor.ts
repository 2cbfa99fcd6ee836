/** Cursor entry holding the key of the first record of the next page (found by the look-ahead). */
export const AHEAD = "~ahead";
/**
 * Cursor entries holding what the listing measured of its filter (read-size.ts): records kept and
 * records evaluated, so that the next page's reads follow the filter's selectivity.
 */
export const KEPT = "~kept";
export const SEEN = "~seen";
/**
 * The read size earlier tokens carried (it only grew). A token sealed before an upgrade may still
 * hold it: it is dropped, never sent as part of DynamoDB's start key.
 */
export const LEGACY_SIZE = "~size";
/** DynamoDB's own per-request page cap; we grow towards it when a filter rejects most items. */
export const MAX_PAGE = 1000;
