import { describe, expect, it } from "vitest";
import { spreadAmong } from "./sequencer.ts";

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
