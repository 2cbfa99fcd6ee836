import type { TableShape } from "../core/model-info.ts";
import { compareStrings } from "../query/order.ts";
import type { Cursor, Item, Key, KeyValue } from "./repository.ts";

export function keyFieldsOf(table: TableShape): string[] {
  return table.key.range ? [table.key.hash, table.key.range] : [table.key.hash];
}

export function pickKey(table: TableShape, item: Item): Key {
  const key: Key = {};
  for (const field of keyFieldsOf(table)) {
    const value = item[field];
    if (typeof value !== "string" && typeof value !== "number") throw new Error(`item has no key attribute '${field}'`);
    key[field] = value;
  }
  return key;
}

/** A stable string for a key, usable as a map key or (encoded) as a file name. */
export function keyString(table: TableShape, key: Key): string {
  return JSON.stringify(keyFieldsOf(table).map((f) => key[f] ?? null));
}

/** Compares two attribute values the way DynamoDB orders keys: numbers numerically, strings by UTF-8 bytes. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return compareStrings(String(a), String(b));
}

export function cursorOf(item: Item, fields: string[]): Cursor {
  const cursor: Cursor = {};
  for (const field of fields) {
    const value = item[field];
    if (typeof value === "string" || typeof value === "number") cursor[field] = value as KeyValue;
  }
  return cursor;
}

/**
 * The index (undefined for the table itself) whose partition key is `field`. Every store refuses
 * other fields alike, so that code which works on memory does not Scan in DynamoDB.
 */
export function assertPartitionField(table: TableShape, field: string): { index?: string } {
  if (table.key.hash === field) return {};
  const index = table.indexes.find((i) => i.hash === field);
  if (index) return { index: index.name };
  throw new Error(`'${field}' is not the partition key of the table or of an index: it cannot be looked up without a Scan`);
}
