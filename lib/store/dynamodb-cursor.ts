/** Cursor entry holding the key of the first record of the next page (found by the look-ahead). */
export const AHEAD = "~ahead";
/** Cursor entry holding the read size reached, so a sparse filter does not start small again. */
export const SIZE = "~size";
/** DynamoDB's own per-request page cap; we grow towards it when a filter rejects most items. */
export const MAX_PAGE = 1000;
