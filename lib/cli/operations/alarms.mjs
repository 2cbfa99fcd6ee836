// The alarms of a deployed stage (docs/operating.md, "Alarms"): each from a threshold of the
// operations settings, none when its threshold is "off", actions to the given SNS topic if any.

const PERIOD = 300;
/** An alarm's metric math may read at most 10 metrics: larger function groups take several alarms. */
const MAX_METRICS = 10;
const DYNAMODB_OPERATIONS = ["GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem", "TransactWriteItems", "TransactGetItems"];

/** The function group of a function (serverless.yml's name): how the alarms and the dashboard group them. */
export function functionGroup(name) {
  if (name.startsWith("rest-")) return "rest";
  if (name.startsWith("auth-")) return "auth";
  if (name === "graphql" || name === "graphiql") return "graphql";
  if (name === "ws" || name === "stream") return "realtime";
  if (name === "authMigrate") return "migrate";
  return "other";
}

const pascal = (text) => text.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_, __, c) => c.toUpperCase());

function chunks(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function alarm(settings, name, description, threshold, metric) {
  const actions = settings.alarmTopicArn ? { AlarmActions: [settings.alarmTopicArn], OKActions: [settings.alarmTopicArn] } : {};
  return {
    Type: "AWS::CloudWatch::Alarm",
    Properties: {
      AlarmName: { "Fn::Sub": `\${AWS::StackName}-${name}` },
      AlarmDescription: description,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Threshold: threshold,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      // No traffic is no evidence of trouble.
      TreatMissingData: "notBreaching",
      ActionsEnabled: true,
      ...actions,
      ...metric,
    },
  };
}

const single = (namespace, name, dimensions, stat) => ({ Namespace: namespace, MetricName: name, ...(dimensions.length > 0 ? { Dimensions: dimensions } : {}), Statistic: stat, Period: PERIOD });
const query = (id, namespace, name, dimensions, stat) => ({ Id: id, ReturnData: false, MetricStat: { Metric: { Namespace: namespace, MetricName: name, Dimensions: dimensions }, Period: PERIOD, Stat: stat } });
const math = (expression, label, metrics) => ({ Metrics: [...metrics, { Id: "result", Expression: expression, Label: label, ReturnData: true }] });

/**
 * `functions`: [{ name, logicalId, timeout }] of the template; `tables`: table logical ids.
 * Returns { logicalId: resource } to merge into the template's Resources.
 */
export function alarmResources(settings, { functions, tables, httpApi, streamFunction, failureQueue }) {
  const a = settings.alarms;
  const out = {};
  const see = (section) => `What to do: docs/operating.md, "${section}".`;

  if (a.api5xxPercent !== undefined && httpApi) {
    const dims = [{ Name: "ApiId", Value: { Ref: httpApi } }, { Name: "Stage", Value: "$default" }];
    out.AlarmApi5xxRate = alarm(settings, "api-5xx-rate", `More than ${a.api5xxPercent}% of the HTTP API's answers in 5 minutes were 5xx. ${see("API 5xx rate")}`, a.api5xxPercent,
      math("IF(requests > 0, 100 * errors / requests, 0)", "5xx %", [query("errors", "AWS/ApiGateway", "5xx", dims, "Sum"), query("requests", "AWS/ApiGateway", "Count", dims, "Sum")]));
  }

  const groups = new Map();
  for (const fn of functions) {
    const group = functionGroup(fn.name);
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(fn);
  }
  for (const [group, members] of groups) {
    // Within a chunk every function has the same timeout, so "near the timeout" is one threshold.
    const byTimeout = new Map();
    for (const fn of members) byTimeout.set(fn.timeout, [...(byTimeout.get(fn.timeout) ?? []), fn]);
    const parts = [...byTimeout.values()].flatMap((same) => chunks(same, MAX_METRICS));
    parts.forEach((part, index) => {
      const suffix = parts.length > 1 ? `${index + 1}` : "";
      const label = `${group}${suffix ? ` (part ${suffix} of ${parts.length})` : ""}`;
      const ids = (metric, stat) => part.map((fn, i) => query(`m${i}`, "AWS/Lambda", metric, [{ Name: "FunctionName", Value: { Ref: fn.logicalId } }], stat));
      const list = part.map((_, i) => `m${i}`).join(", ");
      const id = `${pascal(group)}${suffix}`;
      if (a.lambdaErrors !== undefined) {
        out[`AlarmLambdaErrors${id}`] = alarm(settings, `lambda-errors-${group}${suffix}`, `The ${label} functions failed ${a.lambdaErrors} or more times in 5 minutes. ${see("Lambda errors")}`, a.lambdaErrors,
          math(`SUM([${list}])`, "errors", ids("Errors", "Sum")));
      }
      if (a.lambdaThrottles !== undefined) {
        out[`AlarmLambdaThrottles${id}`] = alarm(settings, `lambda-throttles-${group}${suffix}`, `The ${label} functions were throttled ${a.lambdaThrottles} or more times in 5 minutes. ${see("Lambda throttles")}`, a.lambdaThrottles,
          math(`SUM([${list}])`, "throttles", ids("Throttles", "Sum")));
      }
      if (a.durationPercentOfTimeout !== undefined) {
        const timeoutMs = part[0].timeout * 1000;
        const limit = Math.round((timeoutMs * a.durationPercentOfTimeout) / 100);
        out[`AlarmDurationNearTimeout${id}`] = alarm(settings, `duration-near-timeout-${group}${suffix}`, `A ${label} function ran ${a.durationPercentOfTimeout}% or more of its ${part[0].timeout} s timeout (${limit} ms). ${see("Duration near the timeout")}`, limit,
          math(`MAX([${list}])`, "longest duration (ms)", ids("Duration", "Maximum")));
      }
    });
  }

  for (const table of tables) {
    const dims = [{ Name: "TableName", Value: { Ref: table } }];
    const name = table.replace(/Table$/, "");
    if (a.dynamodbThrottles !== undefined) {
      out[`AlarmDynamoDBThrottles${name}`] = alarm(settings, `dynamodb-throttles-${name}`, `Table ${name}: ${a.dynamodbThrottles} or more throttled reads and writes in 5 minutes. ${see("DynamoDB throttles")}`, a.dynamodbThrottles,
        math("reads + writes", "throttle events", [query("reads", "AWS/DynamoDB", "ReadThrottleEvents", dims, "Sum"), query("writes", "AWS/DynamoDB", "WriteThrottleEvents", dims, "Sum")]));
    }
    if (a.dynamodbSystemErrors !== undefined) {
      const ops = DYNAMODB_OPERATIONS.map((op, i) => query(`m${i}`, "AWS/DynamoDB", "SystemErrors", [...dims, { Name: "Operation", Value: op }], "Sum"));
      out[`AlarmDynamoDBSystemErrors${name}`] = alarm(settings, `dynamodb-system-errors-${name}`, `Table ${name}: DynamoDB answered ${a.dynamodbSystemErrors} or more requests with a 500 in 5 minutes. ${see("DynamoDB system errors")}`, a.dynamodbSystemErrors,
        math(`SUM([${ops.map((o) => o.Id).join(", ")}])`, "system errors", ops));
    }
  }

  if (a.streamIteratorAgeMs !== undefined && streamFunction) {
    out.AlarmStreamIteratorAge = alarm(settings, "stream-iterator-age", `The stream consumer ran ${a.streamIteratorAgeMs} ms or more behind the writes. ${see("Stream iterator age")}`, a.streamIteratorAgeMs,
      single("AWS/Lambda", "IteratorAge", [{ Name: "FunctionName", Value: { Ref: streamFunction } }], "Maximum"));
  }
  if (a.streamFailures !== undefined && failureQueue) {
    out.AlarmStreamFailures = alarm(settings, "stream-failures", `${a.streamFailures} or more stream batches wait in the failure queue. ${see("Stream failure queue")}`, a.streamFailures,
      single("AWS/SQS", "ApproximateNumberOfMessagesVisible", [{ Name: "QueueName", Value: { "Fn::GetAtt": [failureQueue, "QueueName"] } }], "Maximum"));
  }
  if (a.refreshTokenReuse !== undefined && settings.metrics !== false) {
    out.AlarmRefreshTokenReuse = alarm(settings, "refresh-token-reuse", `${a.refreshTokenReuse} or more refresh tokens came back after use in 5 minutes (families revoked). ${see("Refresh-token reuse")}`, a.refreshTokenReuse,
      single(settings.namespace, "RefreshTokenReuse", [], "Sum"));
  }
  if (a.lockouts !== undefined && settings.metrics !== false) {
    out.AlarmLockouts = alarm(settings, "lockouts", `${a.lockouts} or more logins were refused by an account lock in 5 minutes. ${see("Lockouts")}`, a.lockouts,
      single(settings.namespace, "Lockouts", [], "Sum"));
  }
  return out;
}
