import { describe, expect, it } from "vitest";
import { dimensionSetsOf, parseEmf, unitOf } from "../support/emf.ts";
import { runInvocation } from "../../lib/core/invocation.ts";
import { countDynamoDBCall, countDynamoDBThrottle, countEvent, metricsLine, millisecondsText } from "../../lib/core/metrics.ts";

describe("an invocation's metric line", () => {
  it("sums counts, keeps the largest age, and publishes events without dimensions", () =>
    runInvocation(async () => {
      countEvent("Deliveries", 2);
      countEvent("Deliveries", 3);
      countEvent("StreamBatchAge", 500);
      countEvent("StreamBatchAge", 120);
      countDynamoDBCall(1.5, 0);
      countDynamoDBCall(0, 2);
      countDynamoDBThrottle();
      const line = parseEmf(metricsLine({ service: "stream", latencyMs: 12.345 }, "blog/test", 1_000));
      expect(line).toMatchObject({
        Service: "stream",
        Invocations: 1,
        Latency: 12.35,
        Deliveries: 5,
        StreamBatchAge: 500,
        DynamoDBCalls: 2,
        DynamoDBReadUnits: 1.5,
        DynamoDBWriteUnits: 2,
        DynamoDBThrottles: 1,
      });
      expect(line).not.toHaveProperty("Requests");
      expect(line._aws.Timestamp).toBe(1_000);
      expect(dimensionSetsOf(line, "Deliveries")).toEqual([""]);
      expect(unitOf(line, "StreamBatchAge")).toBe("Milliseconds");
      expect(dimensionSetsOf(line, "Invocations")).toEqual(["Service", ""]);
    }));

  it("starts from nothing at each invocation, and lines of another shape get their own directives", async () => {
    const first = await runInvocation(async () => {
      countEvent("Logins");
      return parseEmf(metricsLine({ service: "auth", route: "POST /auth/email/login", status: 200, latencyMs: 1 }, "blog/test"));
    });
    const second = await runInvocation(async () =>
      parseEmf(metricsLine({ service: "auth", route: "POST /auth/email/login", status: 429, latencyMs: 1 }, "blog/test")),
    );
    expect(first).toMatchObject({ Logins: 1, StatusClass: "2xx" });
    expect(second).not.toHaveProperty("Logins");
    expect(second).toMatchObject({ StatusClass: "4xx", DynamoDBCalls: 0, status: 429 });
    expect(second._aws.CloudWatchMetrics.flatMap((d) => d.Metrics.map((m) => m.Name))).not.toContain("Logins");
  });

  it("writes milliseconds as JSON would write them rounded to hundredths, whatever the value", () => {
    const values = [0, 0.004, 0.005, 0.1, 0.09, 1.25, 12.345, 12.3449, 99.999, 100, 1.5e12, 2 ** 60, 7.07];
    for (let i = 0; i < 10_000; i++) values.push(Math.random() * 10 ** Math.floor(Math.random() * 7));
    for (const v of values) {
      const text = millisecondsText(v);
      expect(JSON.parse(text), `${v} -> ${text}`).toBe(Math.round(v * 100) / 100);
      expect(text).toBe(JSON.stringify(Math.round(v * 100) / 100));
    }
  });
});
