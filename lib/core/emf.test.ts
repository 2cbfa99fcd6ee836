import { describe, expect, it } from "vitest";
import { emfLine } from "./emf.ts";

describe("emfLine", () => {
  it("puts the directives under _aws and every value at the root", () => {
    const line = JSON.parse(
      emfLine("ns", 1234, [{ dimensions: [["Service"], []], metrics: [{ name: "Requests", unit: "Count" }] }], {
        Service: "rest",
        Requests: 1,
        requestId: "r",
      }),
    ) as unknown;
    expect(line).toEqual({
      _aws: { Timestamp: 1234, CloudWatchMetrics: [{ Namespace: "ns", Dimensions: [["Service"], []], Metrics: [{ Name: "Requests", Unit: "Count" }] }] },
      Service: "rest",
      Requests: 1,
      requestId: "r",
    });
  });

  it("refuses a directive naming a member the line lacks: CloudWatch would drop the metric silently", () => {
    expect(() => emfLine("ns", 1, [{ dimensions: [["Route"]], metrics: [{ name: "Requests", unit: "Count" }] }], { Requests: 1 })).toThrow(/Route/);
    expect(() => emfLine("ns", 1, [{ dimensions: [[]], metrics: [{ name: "Latency", unit: "Milliseconds" }] }], { Requests: 1 })).toThrow(/Latency/);
  });
});
