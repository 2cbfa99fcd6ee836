import { describe, expect, it } from "vitest";
import { itemsOf, unitsOf } from "./dynamodb-metrics.ts";

describe("what a DynamoDB answer says it cost", () => {
  it("counts the items evaluated: ScannedCount first, else the items returned, per table for batches", () => {
    expect(itemsOf({ ScannedCount: 40, Items: [1, 2] })).toBe(40);
    expect(itemsOf({ Items: [1, 2, 3] })).toBe(3);
    expect(itemsOf({ Item: { id: "a" } })).toBe(1);
    expect(itemsOf({})).toBe(0);
    expect(itemsOf({ Responses: { posts: [1, 2], users: [3] } })).toBe(3);
    expect(itemsOf({ Responses: [{ Item: 1 }, { Item: 2 }] })).toBe(2);
  });

  it("reads TOTAL capacity as reads or writes by the call, and the split when DynamoDB gives one", () => {
    expect(unitsOf({ CapacityUnits: 2.5 }, false)).toEqual({ read: 2.5, write: 0 });
    expect(unitsOf([{ CapacityUnits: 1 }, { CapacityUnits: 2 }], true)).toEqual({ read: 0, write: 3 });
    expect(unitsOf({ ReadCapacityUnits: 1, WriteCapacityUnits: 4, CapacityUnits: 5 }, false)).toEqual({ read: 1, write: 4 });
    expect(unitsOf(undefined, true)).toEqual({ read: 0, write: 0 });
  });
});
