import { describe, expect, it } from "vitest";
import { dashboardBody } from "./dashboard.mjs";
import { ALARM_DEFAULTS, operationsSettings } from "./settings.mjs";

describe("operations settings", () => {
  it("takes the documented defaults when nothing is given", () => {
    expect(operationsSettings({})).toEqual({ namespace: "modelrest", logRetentionDays: 30, metrics: true, tracing: false, alarmTopicArn: undefined, dashboard: true, alarms: ALARM_DEFAULTS });
  });

  it("reads parameters as the framework resolves them (strings), and 'off' drops an alarm or the retention", () => {
    const s = operationsSettings({ tracing: "true", logRetentionDays: "off", alarms: { lockouts: "off", api5xxPercent: "2.5" } });
    expect(s).toMatchObject({ tracing: true, logRetentionDays: undefined, alarms: { lockouts: undefined, api5xxPercent: 2.5, lambdaErrors: 1 } });
  });

  it.each([
    [{ alarms: { lockouts: "lots" } }, /alarms\.lockouts/],
    [{ alarms: { lockout: 3 } }, /unknown alarm setting lockout/],
    [{ logRetentionDays: 31 }, /logRetentionDays must be one of/],
    [{ tracing: "yes" }, /tracing must be true or false/],
    [{ metrics: "no" }, /metrics must be true or false/],
    [{ alarmTopicArn: "my-topic" }, /alarmTopicArn must be an SNS topic ARN/],
  ])("refuses %j, naming the setting", (raw, message) => {
    expect(() => operationsSettings(raw)).toThrow(message);
  });

  it("reads metrics: false, and the dashboard then keeps only the panels on AWS's own metrics", () => {
    expect(operationsSettings({ metrics: "false" }).metrics).toBe(false);
    const panels = (own: boolean) => (JSON.parse(dashboardBody("blog/prod", "blog-prod-", own)) as { widgets: { properties: { title: string; metrics: unknown } }[] }).widgets;
    const all = panels(true);
    const aws = panels(false);
    expect(aws.length).toBeGreaterThan(0);
    expect(aws.length).toBeLessThan(all.length);
    for (const w of aws) expect(JSON.stringify(w.properties.metrics)).not.toContain("blog/prod");
    expect(aws.map((w) => w.properties.title)).toContain("Lambda errors and throttles");
  });
});
