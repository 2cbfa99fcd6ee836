import { describe, expect, it } from "vitest";
import { dashboardBody } from "./dashboard.mjs";
import { ALARM_DEFAULTS, EDGE_DEFAULTS, EVALUATION_DEFAULTS, operationsSettings } from "./settings.mjs";

describe("operations settings", () => {
  it("takes the documented defaults when nothing is given", () => {
    expect(operationsSettings({})).toEqual({
      namespace: "modelrest",
      logRetentionDays: 30,
      metrics: true,
      tracing: false,
      alarmTopicArn: undefined,
      alarmEmail: undefined,
      dashboard: true,
      graphiql: false,
      testRoutes: false,
      testServices: [],
      tags: {},
      accountConcurrencyLimit: 1000,
      evaluation: EVALUATION_DEFAULTS,
      edge: {
        ...EDGE_DEFAULTS,
        streamReservedConcurrency: undefined,
        wsReservedConcurrency: undefined,
        tableDeletionProtection: true,
        accessLogs: true,
        apiGatewayLogsRole: "create",
      },
      alarms: ALARM_DEFAULTS,
    });
    // M of N: one bad period alone never fires an alarm.
    expect(EVALUATION_DEFAULTS.datapointsToAlarm).toBeGreaterThan(1);
    expect(EDGE_DEFAULTS.authThrottleRate).toBeLessThan(EDGE_DEFAULTS.throttleRate);
  });

  it("reads parameters as the framework resolves them (strings), and 'off' drops an alarm, the retention or a throttle", () => {
    const s = operationsSettings({
      tracing: "true",
      logRetentionDays: "off",
      alarms: { lockouts: "off", api5xxPercent: "2.5" },
      alarmEmail: "ops@example.com",
      tags: "team=shop, cost-center=42",
      evaluation: { periodSeconds: "300", evaluationPeriods: "3", datapointsToAlarm: "2", minRequests: "50" },
      edge: { throttleRate: "off", streamReservedConcurrency: "5", tableDeletionProtection: "false", apiGatewayLogsRole: "existing" },
      graphiql: "true",
      testServices: ["testbean"],
      accountConcurrencyLimit: "10",
    });
    expect(s).toMatchObject({
      tracing: true,
      logRetentionDays: undefined,
      alarmEmail: "ops@example.com",
      tags: { team: "shop", "cost-center": "42" },
      graphiql: true,
      testServices: ["testbean"],
      accountConcurrencyLimit: 10,
      alarms: { lockouts: undefined, api5xxPercent: 2.5, lambdaErrors: 3 },
      evaluation: { periodSeconds: 300, evaluationPeriods: 3, datapointsToAlarm: 2, minRequests: 50 },
      edge: {
        throttleRate: undefined,
        throttleBurst: 400,
        streamReservedConcurrency: 5,
        wsReservedConcurrency: undefined,
        tableDeletionProtection: false,
        apiGatewayLogsRole: "existing",
      },
    });
    // The framework's null for a parameter left unset is no value.
    expect(operationsSettings({ alarmTopicArn: null, alarmEmail: "null", tags: null })).toMatchObject({
      alarmTopicArn: undefined,
      alarmEmail: undefined,
      tags: {},
    });
  });

  it.each([
    [{ alarms: { lockouts: "lots" } }, /alarms\.lockouts/],
    [{ alarms: { lockout: 3 } }, /unknown alarm setting lockout/],
    [{ logRetentionDays: 31 }, /logRetentionDays must be one of/],
    [{ tracing: "yes" }, /tracing must be true or false/],
    [{ metrics: "no" }, /metrics must be true or false/],
    [{ graphiql: "maybe" }, /graphiql must be true or false/],
    [{ alarmTopicArn: "my-topic" }, /alarmTopicArn must be an SNS topic ARN/],
    [{ alarmEmail: "ops" }, /alarmEmail must be one email address/],
    [{ alarmEmail: "a@example.com,b@example.com" }, /alarmEmail must be one email address/],
    [{ evaluation: { datapointsToAlarm: 6 } }, /alarmDatapointsToAlarm \(6\) cannot exceed alarmEvaluationPeriods \(5\)/],
    [{ evaluation: { periodSeconds: 90 } }, /alarmPeriodSeconds must be a multiple of 60/],
    [{ evaluation: { periodSeconds: 3600, evaluationPeriods: 48 } }, /at most one day/],
    [{ evaluation: { evaluationPeriods: "off" } }, /cannot be off/],
    [{ edge: { throttleBurst: 1.5 } }, /throttleBurst must be a whole number/],
    [{ edge: { wsReservedConcurrency: -1 } }, /wsReservedConcurrency must be a number of at least 0/],
    [{ edge: { apiGatewayLogsRole: "mine" } }, /apiGatewayLogsRole must be "create" or "existing"/],
    [{ tags: "team" }, /tags must be key=value pairs/],
    [{ tags: "aws:owner=me" }, /tags must be key=value pairs/],
  ])("refuses %j, naming the setting", (raw, message) => {
    expect(() => operationsSettings(raw)).toThrow(message);
  });

  it("reads metrics: false, and the dashboard then keeps only the panels on AWS's own metrics", () => {
    expect(operationsSettings({ metrics: "false" }).metrics).toBe(false);
    const panels = (own: boolean) =>
      (JSON.parse(dashboardBody("shop/prod", "shop-prod-", own)) as { widgets: { properties: { title: string; metrics: unknown } }[] }).widgets;
    const all = panels(true);
    const aws = panels(false);
    expect(aws.length).toBeGreaterThan(0);
    expect(aws.length).toBeLessThan(all.length);
    for (const w of aws) expect(JSON.stringify(w.properties.metrics)).not.toContain("shop/prod");
    expect(aws.map((w) => w.properties.title)).toContain("Lambda errors and throttles");
  });
});
