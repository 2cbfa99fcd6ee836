import { describe, expect, it } from "vitest";
import { shuffled, shuffleProject, shuffleSeed, spreadAmong } from "./sequencer.ts";

describe("spreadAmong (the order service files are handed to the workers)", () => {
  it("follows each service with an equal share of the others, in their order, the remainder last", () => {
    const units = ["u1", "u2", "u3", "u4", "u5", "u6", "u7"];
    expect(spreadAmong(["s1", "s2", "s3"], units)).toEqual(["s1", "u1", "u2", "s2", "u3", "u4", "s3", "u5", "u6", "u7"]);
  });

  it("keeps every file exactly once, services first when there are fewer others than services", () => {
    expect(spreadAmong(["s1", "s2", "s3"], ["u1"])).toEqual(["s1", "s2", "s3", "u1"]);
    const spread = spreadAmong(["s1", "s2"], ["u1", "u2", "u3", "u4", "u5"]);
    expect([...spread].sort()).toEqual(["s1", "s2", "u1", "u2", "u3", "u4", "u5"]);
  });

  it("leaves the others as they are when there is nothing to spread", () => {
    expect(spreadAmong([], ["u1", "u2"])).toEqual(["u1", "u2"]);
  });
});

describe("the unit files' shuffled order", () => {
  const files = Array.from({ length: 40 }, (_, i) => `f${i}`);

  it("is one order per seed, every file once, and another order for another seed", () => {
    const order = shuffled(files, 1234);
    expect(shuffled(files, 1234)).toEqual(order);
    expect([...order].sort()).toEqual([...files].sort());
    expect(order).not.toEqual(files);
    expect(shuffled(files, 1235)).not.toEqual(order);
  });

  it("moves only the project's files, among the places they held", () => {
    const mixed = ["s1", "u1", "u2", "e1", "u3", "u4"];
    const out = shuffleProject(mixed, (f) => f.startsWith("u"), 7);
    expect([out[0], out[3]]).toEqual(["s1", "e1"]);
    expect(out.filter((f) => f.startsWith("u")).sort()).toEqual(["u1", "u2", "u3", "u4"]);
  });

  it("takes TEST_SEED to replay a run, refuses one that is not a whole number, and draws one without it", () => {
    expect(shuffleSeed({ TEST_SEED: "42" })).toBe(42);
    expect(() => shuffleSeed({ TEST_SEED: "4x" })).toThrow(/TEST_SEED/);
    expect(Number.isSafeInteger(shuffleSeed({}))).toBe(true);
  });
});
