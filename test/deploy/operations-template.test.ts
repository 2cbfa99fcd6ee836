import { execFile } from "node:child_process";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk, publicKeySet } from "../../lib/auth/index.ts";
import { EVENT_METRICS } from "../../lib/core/metrics.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { overlyBroad, statementsOf } from "../support/iam.ts";
import { specErrors } from "../support/cfn-validation.ts";

const run = promisify(execFile);
// Packaging rewrites .esbuild/, which a running `npm start` serves from: this file packages a copy
// of the project, so it runs beside any start (no turn on the offline lock).
const copy = new ProjectCopy("operations");
const root = copy.dir;
const scratch = await mkdtemp(join(tmpdir(), "operations-"));
const TOPIC = "arn:aws:sns:us-east-1:123456789012:blog-ops";
const EMAIL = "ops@example.com";

interface Resource {
  Type: string;
  DependsOn?: string[];
  Properties: Record<string, unknown>;
}
type Template = { Resources: Record<string, Resource> };
interface Query {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] }; Stat: string; Period: number };
}
interface Packaged {
  template: Template;
  state: { service: { provider: { stackTags?: Record<string, string> } } };
}

/** The test run's environment without its LOG_LEVEL (warn), which the level's fallback would read. */
function shellEnv(): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _ignored, ...env } = process.env;
  return { ...env, ALLOW_TEST_USER: "false" };
}

/** Every parameter a deployed stage needs but the alarm destination. */
const REQUIRED = () => [
  // The secrets as a deployed stage names them (SSM parameters) and the signing key's public set.
  "--param",
  "appSecretParameter=/blog/prod/app-secret",
  "--param",
  "authSigningKeyParameter=/blog/prod/auth-signing-key",
  "--param",
  "idpClientSecretParameter=/blog/prod/idp-client-secret",
  "--param",
  `authPublicKeys=${JSON.stringify(publicKeySet(JSON.stringify(generateSigningJwk())))}`,
  "--param",
  "idpIssuer=https://accounts.example.com",
  "--param",
  "idpClientId=ci-client",
  "--param",
  "publicUrl=https://api.example.com",
];

/** `serverless package --stage prod` offline, with the parameters a deployed stage needs and `extra`. */
async function packaged(name: string, extra: string[]): Promise<Packaged> {
  const out = join(scratch, name);
  await run(
    join(root, "node_modules/.bin/serverless"),
    ["package", "--stage", "prod", "--package", out, ...REQUIRED(), ...extra.flatMap((p) => ["--param", p])],
    {
      cwd: root,
      env: shellEnv(),
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return {
    template: JSON.parse(await readFile(join(out, "cloudformation-template-update-stack.json"), "utf8")) as Template,
    state: JSON.parse(await readFile(join(out, "serverless-state.json"), "utf8")) as Packaged["state"],
  };
}

const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
const alarms = (t: Template) => Object.fromEntries(ofType(t, "AWS::CloudWatch::Alarm"));
const queriesOf = (alarm: Resource) => (alarm.Properties.Metrics ?? []) as Query[];
const expressionOf = (alarm: Resource | undefined) => queriesOf(alarm as Resource).find((q) => q.Expression)?.Expression;
const env = (fn: Resource) => (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
/** The functions (logical ids) an alarm family watches, each as often as it is watched. */
function watched(t: Template, prefix: string): string[] {
  return Object.entries(alarms(t))
    .filter(([id]) => id.startsWith(prefix))
    .flatMap(([, a]) =>
      queriesOf(a).flatMap((q) => q.MetricStat?.Metric.Dimensions?.filter((d) => d.Name === "FunctionName").map((d) => (d.Value as { Ref: string }).Ref) ?? []),
    );
}
const stage = (t: Template, api: string) =>
  ofType(t, "AWS::ApiGatewayV2::Stage").find(([, s]) => JSON.stringify(s.Properties.ApiId) === JSON.stringify({ Ref: api }))?.[1];
const httpPaths = (t: Template) => ofType(t, "AWS::ApiGatewayV2::Route").map(([, r]) => String(r.Properties.RouteKey));

let defaults: Template;
let defaultState: Packaged["state"];
let tuned: Template;
let tunedState: Packaged["state"];
beforeAll(async () => {
  ({ template: defaults, state: defaultState } = await packaged("defaults", [`alarmEmail=${EMAIL}`]));
  ({ template: tuned, state: tunedState } = await packaged("tuned", [
    "tracing=true",
    "metrics=false",
    `alarmTopicArn=${TOPIC}`,
    "alarmStreamFailures=off",
    "alarmApi5xxPercent=2",
    "logRetentionDays=90",
    "logLevel=warn",
    "dashboard=false",
    "alarmEvaluationPeriods=10",
    "alarmDatapointsToAlarm=4",
    "alarmMinRequests=100",
    "accountConcurrencyLimit=10",
    "throttleRate=50",
    "throttleBurst=100",
    "authThrottleRate=5",
    "authThrottleBurst=10",
    "streamReservedConcurrency=5",
    "wsReservedConcurrency=10",
    "tableDeletionProtection=false",
    "apiGatewayLogsRole=existing",
    "tags=team=blog,cost-center=42",
    "graphiql=true",
    "testRoutes=true",
  ]));
}, 600_000);
afterAll(async () => {
  copy.remove();
  await rm(scratch, { recursive: true, force: true });
});

describe("packaging a deployed stage", () => {
  it("is refused without an alarm destination, naming both parameters, and writes nothing", async () => {
    const out = join(scratch, "nodestination");
    const attempt = run(join(root, "node_modules/.bin/serverless"), ["package", "--stage", "prod", "--package", out, ...REQUIRED()], {
      cwd: root,
      env: shellEnv(),
      maxBuffer: 16 * 1024 * 1024,
    });
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining("Stage 'prod' needs an alarm destination, or its alarms reach nobody"),
    });
    const failure = (await attempt.catch((e: { stdout: string }) => e)) as { stdout: string };
    expect(failure.stdout).toContain("--param alarmTopicArn=");
    expect(failure.stdout).toContain("--param alarmEmail=");
    await expect(access(out)).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);
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
    for (const [, fn] of functions) expect(env(fn)).toMatchObject({ LOG_LEVEL: "info", METRICS_NAMESPACE: "blog/prod" });
  });

  it("leaves tracing off: no function traced, no X-Ray permission", () => {
    for (const [, fn] of ofType(defaults, "AWS::Lambda::Function")) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
      expect(env(fn).TRACING).toBeUndefined();
    }
    expect(JSON.stringify(ofType(defaults, "AWS::IAM::Role"))).not.toContain("XRay");
  });

  it("sends every alarm, when it fires and when it clears, to a topic that mails alarmEmail", () => {
    expect(defaults.Resources.AlarmTopic).toEqual({
      Type: "AWS::SNS::Topic",
      Properties: { DisplayName: "blog prod alarms", Subscription: [{ Protocol: "email", Endpoint: EMAIL }] },
    });
    const all = Object.values(alarms(defaults));
    expect(all.length).toBeGreaterThan(60);
    for (const alarm of all)
      expect(alarm.Properties).toMatchObject({ ActionsEnabled: true, AlarmActions: [{ Ref: "AlarmTopic" }], OKActions: [{ Ref: "AlarmTopic" }] });
  });

  it("evaluates M of N one-minute periods, one datapoint only for facts, and says what missing data means", () => {
    const facts = new Set([
      "AlarmStreamFailures",
      "AlarmFanoutFailures",
      "AlarmMigrationFailures",
      "AlarmSesBounceRate",
      "AlarmSesComplaintRate",
      "AlarmRefreshTokenReuse",
      "AlarmLockouts",
      "AlarmDurationNearTimeoutMigrate",
    ]);
    for (const [id, alarm] of Object.entries(alarms(defaults))) {
      expect(alarm.Properties.TreatMissingData, id).toBe("notBreaching");
      const periods = [alarm.Properties.Period, ...queriesOf(alarm).map((q) => q.MetricStat?.Period)].filter((p) => p !== undefined);
      expect(periods.length, id).toBeGreaterThan(0);
      if (facts.has(id)) {
        expect(alarm.Properties, id).toMatchObject({ EvaluationPeriods: 1, DatapointsToAlarm: 1 });
        for (const p of periods) expect(p, id).toBe(300);
      } else {
        expect(alarm.Properties, id).toMatchObject({ EvaluationPeriods: 5, DatapointsToAlarm: 3 });
        for (const p of periods) expect(p, id).toBe(60);
      }
    }
    for (const id of facts) expect(alarms(defaults)[id], id).toBeDefined();
  });

  it("guards the rates with a minimum of traffic", () => {
    const all = alarms(defaults);
    expect(all.AlarmApi5xxRate?.Properties.Threshold).toBe(5);
    expect(expressionOf(all.AlarmApi5xxRate)).toBe("IF(requests >= 20, 100 * errors / requests, 0)");
    expect(JSON.stringify(all.AlarmApi5xxRate)).toContain('"Ref":"HttpApi"');
    expect(all.AlarmWebSocketErrors?.Properties.Threshold).toBe(5);
    expect(expressionOf(all.AlarmWebSocketErrors)).toBe("IF(connects + messages >= 20, 100 * (integration + execution) / (connects + messages), 0)");
    const ws = queriesOf(all.AlarmWebSocketErrors as Resource).filter((q) => q.MetricStat);
    expect(ws.map((q) => q.MetricStat?.Metric.MetricName).sort()).toEqual(["ConnectCount", "ExecutionError", "IntegrationError", "MessageCount"]);
    for (const q of ws) expect(q.MetricStat?.Metric.Dimensions).toEqual([{ Name: "ApiId", Value: { Ref: "WebsocketsApi" } }]);
  });

  it("watches every function's errors (the migration's by its failure queue), throttles and p99 duration, in alarms of at most 10 metrics", () => {
    const all = alarms(defaults);
    const functions = ofType(defaults, "AWS::Lambda::Function")
      .map(([id]) => id)
      .sort();
    expect(watched(defaults, "AlarmLambdaErrors").sort()).toEqual(functions.filter((id) => id !== "AuthMigrateLambdaFunction"));
    for (const family of ["AlarmLambdaThrottles", "AlarmDurationNearTimeout"]) expect(watched(defaults, family).sort()).toEqual(functions);
    for (const alarm of Object.values(all)) expect(queriesOf(alarm).filter((q) => q.MetricStat).length).toBeLessThanOrEqual(10);
    expect(all.AlarmLambdaErrorsRest1?.Properties.Threshold).toBe(3);
    expect(all.AlarmLambdaThrottlesGraphql?.Properties.Threshold).toBe(5);
    // 80% of the 29 s timeout, and of the migration's 900 s, on each function's p99.
    expect(all.AlarmDurationNearTimeoutGraphql?.Properties.Threshold).toBe(23_200);
    expect(all.AlarmDurationNearTimeoutMigrate?.Properties.Threshold).toBe(720_000);
    for (const q of queriesOf(all.AlarmDurationNearTimeoutGraphql as Resource).filter((x) => x.MetricStat)) expect(q.MetricStat?.Stat).toBe("p99");
    expect(all.AlarmApiLatencyP99?.Properties).toMatchObject({
      Threshold: 24_000,
      Namespace: "AWS/ApiGateway",
      MetricName: "Latency",
      ExtendedStatistic: "p99",
    });
  });

  it("watches the account's concurrency, SES's reputation, every table and every index", () => {
    const all = alarms(defaults);
    expect(all.AlarmAccountConcurrency?.Properties).toMatchObject({
      Threshold: 800,
      Namespace: "AWS/Lambda",
      MetricName: "ClaimedAccountConcurrency",
      Statistic: "Maximum",
    });
    expect(all.AlarmSesBounceRate?.Properties).toMatchObject({ Threshold: 0.05, Namespace: "AWS/SES", MetricName: "Reputation.BounceRate" });
    expect(all.AlarmSesComplaintRate?.Properties).toMatchObject({ Threshold: 0.001, Namespace: "AWS/SES", MetricName: "Reputation.ComplaintRate" });
    const tables = ofType(defaults, "AWS::DynamoDB::Table");
    let indexes = 0;
    for (const [table, resource] of tables) {
      const name = table.replace(/Table$/, "");
      expect(all[`AlarmDynamoDBThrottles${name}`]?.Properties.Threshold).toBe(5);
      expect(all[`AlarmDynamoDBSystemErrors${name}`]?.Properties.Threshold).toBe(1);
      expect(JSON.stringify(all[`AlarmDynamoDBSystemErrors${name}`])).toContain(`{"Ref":"${table}"}`);
      // Each index's reads and writes, once, in the table's index alarms.
      const expected = ((resource.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map((i) => i.IndexName);
      const seen = Object.entries(all)
        .filter(([id]) => id.startsWith(`AlarmDynamoDBIndexThrottles${name}`) && /^\d*$/.test(id.slice(`AlarmDynamoDBIndexThrottles${name}`.length)))
        .flatMap(([, a]) =>
          queriesOf(a)
            .filter((q) => q.MetricStat)
            .map(
              (q) => `${q.MetricStat?.Metric.MetricName}:${String(q.MetricStat?.Metric.Dimensions?.find((d) => d.Name === "GlobalSecondaryIndexName")?.Value)}`,
            ),
        );
      expect(seen.sort()).toEqual(expected.flatMap((i) => [`ReadThrottleEvents:${i}`, `WriteThrottleEvents:${i}`]).sort());
      indexes += expected.length;
    }
    expect(indexes).toBeGreaterThan(0);
    expect(all.AlarmStreamIteratorAge?.Properties).toMatchObject({
      Threshold: 60_000,
      MetricName: "IteratorAge",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: "StreamLambdaFunction" } }],
    });
    expect(all.AlarmStreamFailures?.Properties).toMatchObject({
      Threshold: 1,
      Namespace: "AWS/SQS",
      Dimensions: [{ Value: { "Fn::GetAtt": ["StreamFailuresQueue", "QueueName"] } }],
    });
    expect(all.AlarmMigrationFailures?.Properties).toMatchObject({
      Threshold: 1,
      Namespace: "AWS/SQS",
      Dimensions: [{ Value: { "Fn::GetAtt": ["MigrationFailuresQueue", "QueueName"] } }],
    });
    expect(all.AlarmRefreshTokenReuse?.Properties).toMatchObject({ Threshold: 5, Namespace: "blog/prod", MetricName: "RefreshTokenReuse", Statistic: "Sum" });
    expect(all.AlarmLockouts?.Properties).toMatchObject({ Threshold: 20, Namespace: "blog/prod", MetricName: "Lockouts" });
  });

  it("has a dashboard that reads only metrics the service writes", () => {
    const [[, dashboard] = []] = ofType(defaults, "AWS::CloudWatch::Dashboard");
    const body = JSON.parse((dashboard?.Properties.DashboardBody as { "Fn::Sub": string })["Fn::Sub"].replaceAll("${AWS::Region}", "us-east-1")) as {
      widgets: { properties: { metrics: unknown[][] } }[];
    };
    const own = body.widgets
      .flatMap((w) => w.properties.metrics)
      .filter((m) => m[0] === "blog/prod")
      .map((m) => m[1] as string);
    const written = new Set([
      ...Object.keys(EVENT_METRICS),
      "Requests",
      "Latency",
      "DynamoDBCalls",
      "DynamoDBReadUnits",
      "DynamoDBWriteUnits",
      "DynamoDBThrottles",
    ]);
    expect(own.length).toBeGreaterThan(10);
    for (const name of own) expect(written).toContain(name);
    for (const name of ["RefreshTokenReuse", "Lockouts", "WebSocketConnections", "StreamBatchAge", "DynamoDBReadUnits"]) expect(own).toContain(name);
  });

  it("logs every request of both stages as JSON, into log groups of their own kept 30 days", () => {
    for (const [api, group, name, field] of [
      ["HttpApi", "HttpApiAccessLogGroup", "/aws/http-api/blog-prod", "httpMethod"],
      ["WebsocketsApi", "WebsocketsAccessLogGroup", "/aws/websocket/blog-prod", "eventType"],
    ] as const) {
      expect(defaults.Resources[group]).toEqual({ Type: "AWS::Logs::LogGroup", Properties: { LogGroupName: name, RetentionInDays: 30 } });
      const s = stage(defaults, api);
      const settings = s?.Properties.AccessLogSettings as { DestinationArn: unknown; Format: string };
      expect(settings.DestinationArn).toEqual({ "Fn::GetAtt": [group, "Arn"] });
      const format = JSON.parse(settings.Format) as Record<string, string>;
      expect(format).toMatchObject({
        requestId: "$context.requestId",
        status: "$context.status",
        routeKey: "$context.routeKey",
        ip: "$context.identity.sourceIp",
      });
      expect(format[field]).toMatch(/^\$context\./);
      // The path can carry a token (a mailed link's); the route key cannot.
      expect(Object.values(format)).not.toContain("$context.path");
      expect(s?.DependsOn).toContain(group);
    }
    // The WebSocket stage logs through the account's API Gateway role, which the stack sets.
    expect(defaults.Resources.ApiGatewayAccount?.Properties).toEqual({ CloudWatchRoleArn: { "Fn::GetAtt": ["ApiGatewayLogsRole", "Arn"] } });
    expect(JSON.stringify(defaults.Resources.ApiGatewayLogsRole)).toContain("AmazonAPIGatewayPushToCloudWatchLogs");
    expect(stage(defaults, "WebsocketsApi")?.DependsOn).toContain("ApiGatewayAccount");
  });

  it("throttles both stages, the auth routes that take a credential tighter", () => {
    for (const api of ["HttpApi", "WebsocketsApi"])
      expect(stage(defaults, api)?.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    const http = stage(defaults, "HttpApi") as Resource;
    const routeSettings = http.Properties.RouteSettings as Record<string, unknown>;
    const auth = ofType(defaults, "AWS::ApiGatewayV2::Route").filter(([, r]) => /^POST \/auth\//.test(String(r.Properties.RouteKey)));
    expect(auth.map(([, r]) => r.Properties.RouteKey)).toContain("POST /auth/email/login");
    expect(Object.keys(routeSettings).sort()).toEqual(auth.map(([, r]) => String(r.Properties.RouteKey)).sort());
    for (const value of Object.values(routeSettings)) expect(value).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
    // A route setting names a route that must exist before the stage.
    for (const [id] of auth) expect(http.DependsOn).toContain(id);
  });

  it("names the source of every invoke permission, the WebSocket API's included", () => {
    const permissions = ofType(defaults, "AWS::Lambda::Permission");
    expect(permissions.length).toBeGreaterThan(50);
    for (const [id, p] of permissions) expect(p.Properties.SourceArn, id).toBeDefined();
    const ws = permissions.find(([, p]) => JSON.stringify(p.Properties.FunctionName).includes("WsLambdaFunction"))?.[1];
    expect(JSON.stringify(ws?.Properties.SourceArn)).toContain('{"Ref":"WebsocketsApi"},"/*"');
  });

  it("retries the scheduled migration and keeps its failures in a queue", () => {
    const [[ruleId, rule] = []] = ofType(defaults, "AWS::Events::Rule");
    const [target] = rule?.Properties.Targets as Record<string, unknown>[];
    const queueArn = { "Fn::GetAtt": ["MigrationFailuresQueue", "Arn"] };
    expect(target).toMatchObject({
      Arn: { "Fn::GetAtt": ["AuthMigrateLambdaFunction", "Arn"] },
      RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 3600 },
      DeadLetterConfig: { Arn: queueArn },
    });
    expect(defaults.Resources.MigrationFailuresQueue?.Type).toBe("AWS::SQS::Queue");
    expect(defaults.Resources.MigrationFailuresQueuePolicy?.Properties.PolicyDocument).toMatchObject({
      Statement: [
        {
          Effect: "Allow",
          Principal: { Service: "events.amazonaws.com" },
          Action: "sqs:SendMessage",
          Resource: queueArn,
          Condition: { ArnEquals: { "aws:SourceArn": { "Fn::GetAtt": [ruleId, "Arn"] } } },
        },
      ],
    });
    const [[, invoke] = []] = ofType(defaults, "AWS::Lambda::EventInvokeConfig");
    expect(invoke?.Properties).toEqual({
      FunctionName: { Ref: "AuthMigrateLambdaFunction" },
      Qualifier: "$LATEST",
      MaximumRetryAttempts: 1,
      MaximumEventAgeInSeconds: 3600,
      DestinationConfig: { OnFailure: { Destination: queueArn } },
    });
    // The destination is written with the function's own role, which may send there and nowhere else.
    const role = (defaults.Resources.AuthMigrateLambdaFunction?.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    const grant = ofType(defaults, "AWS::IAM::Policy").find(
      ([, p]) =>
        JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: role }]) &&
        JSON.stringify(p.Properties.PolicyDocument).includes("MigrationFailuresQueue"),
    );
    expect(grant?.[1].Properties.PolicyDocument).toMatchObject({ Statement: [{ Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArn }] });
    expect(invoke?.DependsOn).toContain(grant?.[0]);
  });

  it("protects the tables from deletion and reserves no concurrency unless asked", () => {
    const tables = ofType(defaults, "AWS::DynamoDB::Table");
    expect(tables.length).toBeGreaterThan(5);
    for (const [, table] of tables) expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    for (const [, fn] of ofType(defaults, "AWS::Lambda::Function")) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it("tags the stack (CloudFormation passes stack tags to every resource) and every function with service and stage", () => {
    expect(defaultState.service.provider.stackTags).toEqual({ service: "blog", stage: "prod" });
    for (const [id, fn] of ofType(defaults, "AWS::Lambda::Function"))
      expect(fn.Properties.Tags, id).toEqual(
        expect.arrayContaining([
          { Key: "service", Value: "blog" },
          { Key: "stage", Value: "prod" },
        ]),
      );
  });

  it("ships neither GraphiQL nor the TestBean service, and tells the functions", () => {
    const keys = httpPaths(defaults);
    expect(keys.filter((k) => /\/graphiql|\/testbean/.test(k))).toEqual([]);
    expect(keys).toContain("POST /graphql");
    expect(defaults.Resources.GraphiqlLambdaFunction).toBeUndefined();
    for (const [, fn] of ofType(defaults, "AWS::Lambda::Function")) expect(env(fn)).toMatchObject({ GRAPHIQL: "false", DISABLED_SERVICES: "testbean" });
  });

  it("adds no IAM wildcard and stays under CloudFormation's 500 resources", () => {
    expect(overlyBroad(defaults, "blog-prod")).toEqual([]);
    expect(Object.keys(defaults.Resources).length).toBeLessThan(500);
  });

  it("validates against AWS's resource specification (alarms, dashboard, log groups included)", async () => {
    expect(await specErrors(join(scratch, "defaults"))).toEqual([]);
  });
});

describe("the packaged template's operations (parameters)", () => {
  it("traces every function with one parameter, through AWS's X-Ray policy and no wildcard statement of ours", () => {
    const roles = new Set<string>();
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: "Active" });
      // What lib/core/metrics.ts reads to put the trace id on the log and metric lines.
      expect(env(fn).TRACING).toBe("true");
      roles.add((fn.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0]);
    }
    for (const role of roles)
      expect(tuned.Resources[role]?.Properties.ManagedPolicyArns).toContainEqual({
        "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess",
      });
    expect(overlyBroad(tuned, "blog-prod")).toEqual([]);
  });

  it("sends every alarm to the topic and creates none, takes changed thresholds and evaluation, drops a disabled alarm and the dashboard", () => {
    const all = alarms(tuned);
    expect(tuned.Resources.AlarmTopic).toBeUndefined();
    expect(ofType(tuned, "AWS::SNS::Topic")).toEqual([]);
    expect(alarms(defaults).AlarmStreamFailures).toBeDefined();
    expect(all.AlarmStreamFailures).toBeUndefined();
    // metrics=false drops the two alarms on the service's own metrics.
    expect(all.AlarmLockouts).toBeUndefined();
    expect(all.AlarmRefreshTokenReuse).toBeUndefined();
    expect(all.AlarmApi5xxRate?.Properties.Threshold).toBe(2);
    expect(expressionOf(all.AlarmApi5xxRate)).toBe("IF(requests >= 100, 100 * errors / requests, 0)");
    expect(all.AlarmApi5xxRate?.Properties).toMatchObject({ EvaluationPeriods: 10, DatapointsToAlarm: 4 });
    expect(all.AlarmAccountConcurrency?.Properties.Threshold).toBe(8);
    for (const alarm of Object.values(all)) expect(alarm.Properties).toMatchObject({ AlarmActions: [TOPIC], OKActions: [TOPIC] });
    expect(ofType(tuned, "AWS::CloudWatch::Dashboard")).toEqual([]);
  });

  it("turns the service's metric lines off with one parameter, on every function", () => {
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) expect(env(fn).METRICS).toBe("off");
    for (const [, fn] of ofType(defaults, "AWS::Lambda::Function")) expect(env(fn).METRICS).toBeUndefined();
  });

  it("keeps logs as long as asked, at the level asked, access logs included", () => {
    for (const [, group] of ofType(tuned, "AWS::Logs::LogGroup")) expect(group.Properties.RetentionInDays).toBe(90);
    expect(tuned.Resources.HttpApiAccessLogGroup).toBeDefined();
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) expect(env(fn).LOG_LEVEL).toBe("warn");
  });

  it("takes the throttles, reserved concurrency, deletion protection and the account's logging role from parameters", () => {
    expect(stage(tuned, "HttpApi")?.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    expect(stage(tuned, "WebsocketsApi")?.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    expect((stage(tuned, "HttpApi")?.Properties.RouteSettings as Record<string, unknown>)["POST /auth/email/login"]).toEqual({
      ThrottlingRateLimit: 5,
      ThrottlingBurstLimit: 10,
    });
    expect(tuned.Resources.StreamLambdaFunction?.Properties.ReservedConcurrentExecutions).toBe(5);
    expect(tuned.Resources.WsLambdaFunction?.Properties.ReservedConcurrentExecutions).toBe(10);
    for (const [, table] of ofType(tuned, "AWS::DynamoDB::Table")) expect(table.Properties.DeletionProtectionEnabled).toBeUndefined();
    // The account already has API Gateway's logging role: the stack neither creates nor sets one.
    expect(tuned.Resources.ApiGatewayAccount).toBeUndefined();
    expect(tuned.Resources.ApiGatewayLogsRole).toBeUndefined();
    expect(stage(tuned, "WebsocketsApi")?.Properties.AccessLogSettings).toBeDefined();
  });

  it("adds the tags asked for, and serves GraphiQL and the test routes when asked", () => {
    expect(tunedState.service.provider.stackTags).toEqual({ service: "blog", stage: "prod", team: "blog", "cost-center": "42" });
    const keys = httpPaths(tuned);
    for (const key of ["GET /graphiql", "GET /graphiql/{asset}", "PUT /testbean/testoperation"]) expect(keys).toContain(key);
    for (const [, fn] of ofType(tuned, "AWS::Lambda::Function")) {
      expect(env(fn).GRAPHIQL).toBeUndefined();
      expect(env(fn).DISABLED_SERVICES).toBeUndefined();
    }
    expect(statementsOf(tuned).length).toBeGreaterThan(0);
  });

  it("validates against AWS's resource specification with every parameter set (alarm actions, tracing)", async () => {
    expect(await specErrors(join(scratch, "tuned"))).toEqual([]);
  });
});
