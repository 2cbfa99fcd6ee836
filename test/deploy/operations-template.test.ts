import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk } from "../../lib/auth/index.ts";
import { EVENT_METRICS } from "../../lib/core/metrics.ts";
import { acquireOfflineLock } from "../../lib/local/offline-lock.ts";
import { overlyBroad } from "../support/iam.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = await mkdtemp(join(tmpdir(), "operations-"));
const TOPIC = "arn:aws:sns:us-east-1:123456789012:blog-ops";

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
type Template = { Resources: Record<string, Resource> };
interface Query {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] }; Stat: string };
}

/** The test run's environment without its LOG_LEVEL (warn), which the level's fallback would read. */
function shellEnv(): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _ignored, ...env } = process.env;
  return { ...env, ALLOW_TEST_USER: "false" };
}

/** `serverless package --stage prod` offline, with the parameters a deployed stage needs and `extra`. */
async function packaged(name: string, extra: string[]): Promise<Template> {
  const out = join(scratch, name);
  await run(join(root, "node_modules/.bin/serverless"), [
    "package", "--stage", "prod", "--package", out, "--param", `appSecret=${"s".repeat(48)}`,
    "--param", `authSigningKey=${JSON.stringify(generateSigningJwk())}`,
    "--param", "idpIssuer=https://accounts.example.com", "--param", "idpClientId=ci-client", "--param", `idpClientSecret=${"c".repeat(32)}`,
    "--param", "publicUrl=https://api.example.com",
    ...extra.flatMap((p) => ["--param", p]),
  ], { cwd: root, env: shellEnv(), maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(await readFile(join(out, "cloudformation-template-update-stack.json"), "utf8")) as Template;
}

const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
const alarms = (t: Template) => Object.fromEntries(ofType(t, "AWS::CloudWatch::Alarm"));
const queriesOf = (alarm: Resource) => (alarm.Properties.Metrics ?? []) as Query[];
/** The functions (logical ids) an alarm family watches, each as often as it is watched. */
function watched(t: Template, prefix: string): string[] {
  return Object.entries(alarms(t)).filter(([id]) => id.startsWith(prefix)).flatMap(([, a]) =>
    queriesOf(a).flatMap((q) => q.MetricStat?.Metric.Dimensions.filter((d) => d.Name === "FunctionName").map((d) => (d.Value as { Ref: string }).Ref) ?? []));
}

let defaults: Template;
let tuned: Template;
let release: (() => Promise<void>) | undefined;
beforeAll(async () => {
  // Packaging rewrites .esbuild/, which a running `npm start` serves from: never both at once.
  release = await acquireOfflineLock(600_000);
  defaults = await packaged("defaults", []);
  tuned = await packaged("tuned", [
    "tracing=true", "metrics=false", `alarmTopicArn=${TOPIC}`, "alarmStreamFailures=off", "alarmApi5xxPercent=2", "logRetentionDays=90", "logLevel=warn", "dashboard=false",
  ]);
}, 600_000);
afterAll(async () => {
  await release?.();
  await rm(scratch, { recursive: true, force: true });
});

describe("the packaged template's operations (defaults)", () => {
  it("keeps every function's logs 30 days, at the info level, with metrics under <service>/<stage>", () => {
    const groups = ofType(defaults, "AWS::Logs::LogGroup");
    const functions = ofType(defaults, "AWS::Lambda::Function");
    // Functions of one route group share a log group (docs/deploying.md): every function's group
    // is declared here, and every declared group keeps its logs 30 days.
    const declared = new Set(groups.map(([, g]) => JSON.stringify(g.Properties.LogGroupName)));
    for (const [id, fn] of functions) {
      const shared = (fn.Properties.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup;
      const named = shared === undefined ? JSON.stringify(`/aws/lambda/${String(fn.Properties.FunctionName)}`) : JSON.stringify(shared);
      expect(declared.has(named) || groups.some(([gid]) => JSON.stringify({ Ref: gid }) === named), `${id}'s log group is declared`).toBe(true);
    }
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toBe(30);
    for (const [, fn] of functions) {
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(env).toMatchObject({ LOG_LEVEL: "info", METRICS_NAMESPACE: "blog/prod" });
    }
  });

  it("leaves tracing off: no function traced, no X-Ray permission", () => {
    for (const [, fn] of ofType(defaults, "AWS::Lambda::Function")) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.TRACING).toBeUndefined();
    }
    expect(JSON.stringify(ofType(defaults, "AWS::IAM::Role"))).not.toContain("XRay");
  });

  it("has every documented alarm with its default threshold and no action", () => {
    const all = alarms(defaults);
    const functions = ofType(defaults, "AWS::Lambda::Function").map(([id]) => id).sort();
    const tables = ofType(defaults, "AWS::DynamoDB::Table").map(([id]) => id);
    expect(all.AlarmApi5xxRate?.Properties).toMatchObject({ Threshold: 5, ComparisonOperator: "GreaterThanOrEqualToThreshold", TreatMissingData: "notBreaching" });
    expect(JSON.stringify(all.AlarmApi5xxRate)).toContain('"Ref":"HttpApi"');
    // Every function is watched exactly once by each family, in alarms of at most 10 metrics.
    for (const family of ["AlarmLambdaErrors", "AlarmLambdaThrottles", "AlarmDurationNearTimeout"]) expect(watched(defaults, family).sort()).toEqual(functions);
    for (const alarm of Object.values(all)) expect(queriesOf(alarm).filter((q) => q.MetricStat).length).toBeLessThanOrEqual(10);
    expect(all.AlarmLambdaErrorsRest1?.Properties.Threshold).toBe(1);
    expect(all.AlarmLambdaThrottlesGraphql?.Properties.Threshold).toBe(1);
    // 80% of the 29 s timeout, and of the migration's 900 s.
    expect(all.AlarmDurationNearTimeoutGraphql?.Properties.Threshold).toBe(23_200);
    expect(all.AlarmDurationNearTimeoutMigrate?.Properties.Threshold).toBe(720_000);
    for (const table of tables) {
      const name = table.replace(/Table$/, "");
      expect(all[`AlarmDynamoDBThrottles${name}`]?.Properties.Threshold).toBe(5);
      expect(all[`AlarmDynamoDBSystemErrors${name}`]?.Properties.Threshold).toBe(1);
      expect(JSON.stringify(all[`AlarmDynamoDBSystemErrors${name}`])).toContain(`{"Ref":"${table}"}`);
    }
    expect(all.AlarmStreamIteratorAge?.Properties).toMatchObject({ Threshold: 60_000, MetricName: "IteratorAge", Dimensions: [{ Name: "FunctionName", Value: { Ref: "StreamLambdaFunction" } }] });
    expect(all.AlarmStreamFailures?.Properties).toMatchObject({ Threshold: 1, Namespace: "AWS/SQS", Dimensions: [{ Value: { "Fn::GetAtt": ["StreamFailuresQueue", "QueueName"] } }] });
    expect(all.AlarmRefreshTokenReuse?.Properties).toMatchObject({ Threshold: 5, Namespace: "blog/prod", MetricName: "RefreshTokenReuse", Statistic: "Sum" });
    expect(all.AlarmLockouts?.Properties).toMatchObject({ Threshold: 20, Namespace: "blog/prod", MetricName: "Lockouts" });
    for (const alarm of Object.values(all)) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
      expect(alarm.Properties.OKActions).toBeUndefined();
    }
  });

  it("has a dashboard that reads only metrics the service writes", () => {
    const [[, dashboard] = []] = ofType(defaults, "AWS::CloudWatch::Dashboard");
    const body = JSON.parse(((dashboard?.Properties.DashboardBody as { "Fn::Sub": string })["Fn::Sub"]).replaceAll("${AWS::Region}", "us-east-1")) as { widgets: { properties: { metrics: unknown[][] } }[] };
    const own = body.widgets.flatMap((w) => w.properties.metrics).filter((m) => m[0] === "blog/prod").map((m) => m[1] as string);
    const written = new Set([...Object.keys(EVENT_METRICS), "Requests", "Latency", "DynamoDBCalls", "DynamoDBReadUnits", "DynamoDBWriteUnits", "DynamoDBThrottles"]);
    expect(own.length).toBeGreaterThan(10);
    for (const name of own) expect(written).toContain(name);
    for (const name of ["RefreshTokenReuse", "Lockouts", "WebSocketConnections", "StreamBatchAge", "DynamoDBReadUnits"]) expect(own).toContain(name);
  });

  it("adds no IAM wildcard and stays under CloudFormation's 500 resources", () => {
    expect(overlyBroad(defaults, "blog-prod")).toEqual([]);
    expect(Object.keys(defaults.Resources).length).toBeLessThan(500);
  });
});

describe("the packaged template's operations (parameters)", () => {
  it("traces every function with one parameter, through AWS's X-Ray policy and no wildcard statement of ours", () => {
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: "Active" });
      // What lib/core/metrics.ts reads to put the trace id on the log and metric lines.
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.TRACING).toBe("true");
    }
    // Every function's role (one per kind and route group) may write traces.
    const roles = ofType(tuned, "AWS::IAM::Role");
    expect(roles.length).toBeGreaterThan(1);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toContainEqual({ "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess" });
    expect(overlyBroad(tuned, "blog-prod")).toEqual([]);
  });

  it("sends every alarm to the topic, takes a changed threshold, drops a disabled alarm and the dashboard", () => {
    const all = alarms(tuned);
    // The stream failures alarm is off; metrics=false drops the two alarms on the service's own metrics.
    expect(Object.keys(all).length).toBe(Object.keys(alarms(defaults)).length - 3);
    expect(alarms(defaults).AlarmStreamFailures).toBeDefined();
    expect(all.AlarmStreamFailures).toBeUndefined();
    expect(all.AlarmLockouts).toBeUndefined();
    expect(all.AlarmRefreshTokenReuse).toBeUndefined();
    expect(all.AlarmApi5xxRate?.Properties.Threshold).toBe(2);
    for (const alarm of Object.values(all)) expect(alarm.Properties).toMatchObject({ AlarmActions: [TOPIC], OKActions: [TOPIC] });
    expect(ofType(tuned, "AWS::CloudWatch::Dashboard")).toEqual([]);
  });

  it("turns the service's metric lines off with one parameter, on every function", () => {
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.METRICS).toBe("off");
    for (const [, fn] of ofType(defaults, "AWS::Lambda::Function")) expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.METRICS).toBeUndefined();
  });

  it("keeps logs as long as asked, at the level asked", () => {
    for (const [, group] of ofType(tuned, "AWS::Logs::LogGroup")) expect(group.Properties.RetentionInDays).toBe(90);
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.LOG_LEVEL).toBe("warn");
  });
});
