// @ts-check
// The alarms of a deployed stage (docs/operating.md, "Alarms"): each from a threshold of the
// operations settings, none when its threshold is "off", every one notifying the stage's alarm
// destinations when it fires and when it clears.
/** @import { CfnResource } from "../../core/serverless-host.ts" */
/** @import { OperationsSettings } from "./settings.mjs" */
/** @typedef {{ Name: string, Value: unknown }[]} Dimensions */
/** @typedef {(period: number) => Record<string, unknown>} MetricOf */

/** An alarm's metric math may read at most 10 metrics: larger function groups take several alarms. */
const MAX_METRICS = 10;
/** Alarms on a fact that one datapoint proves (a message in a failure queue, a burst of reuse) read 5 minutes at once. */
const FACT_PERIOD = 300;
/** API Gateway's integration timeout (HTTP and WebSocket APIs): the longest a client waits for a function. */
const API_TIMEOUT_MS = 30_000;
const DYNAMODB_OPERATIONS = [
  "GetItem",
  "PutItem",
  "UpdateItem",
  "DeleteItem",
  "Query",
  "Scan",
  "BatchGetItem",
  "BatchWriteItem",
  "TransactWriteItems",
  "TransactGetItems",
];

/** The function group of a function (serverless.yml's name): how the alarms and the dashboard group them. */
export function functionGroup(/** @type {string} */ name) {
  if (name.startsWith("rest-")) return "rest";
  if (name.startsWith("auth-")) return "auth";
  if (name === "graphql" || name === "graphiql") return "graphql";
  if (name === "ws" || name === "stream" || name === "fanout") return "realtime";
  if (name === "authMigrate") return "migrate";
  return "other";
}

const pascal = (/** @type {string} */ text) => text.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_, __, /** @type {string} */ c) => c.toUpperCase());

/**
 * @template T
 * @param {T[]} items
 * @param {number} size
 * @returns {T[][]}
 */
function chunks(items, size) {
  /** @type {T[][]} */
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * One alarm. `how.fact`: one 5-minute datapoint is enough (M-of-N would only delay it); otherwise
 * M of N periods of the settings' length must breach, so one bad minute does not page anyone.
 * `how.missing`: what no data means; "notBreaching" unless said (no traffic is no trouble).
 * @param {{ settings: OperationsSettings, destinations: unknown[] }} context
 * @param {string} name
 * @param {string} description
 * @param {number} threshold
 * @param {MetricOf} metric
 * @param {{ fact?: boolean, missing?: string }} [how]
 * @returns {CfnResource}
 */
function alarm(context, name, description, threshold, metric, how = {}) {
  const { evaluation } = context.settings;
  const fact = how.fact === true;
  const destinations = context.destinations;
  return {
    Type: "AWS::CloudWatch::Alarm",
    Properties: {
      AlarmName: { "Fn::Sub": `\${AWS::StackName}-${name}` },
      AlarmDescription: description,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Threshold: threshold,
      EvaluationPeriods: fact ? 1 : evaluation.evaluationPeriods,
      DatapointsToAlarm: fact ? 1 : evaluation.datapointsToAlarm,
      TreatMissingData: how.missing ?? "notBreaching",
      ActionsEnabled: true,
      ...(destinations.length > 0 ? { AlarmActions: destinations, OKActions: destinations } : {}),
      ...metric(fact ? FACT_PERIOD : evaluation.periodSeconds),
    },
  };
}

/** @type {(namespace: string, name: string, dimensions: Dimensions, stat: string) => MetricOf} */
const single = (namespace, name, dimensions, stat) => (period) => ({
  Namespace: namespace,
  MetricName: name,
  ...(dimensions.length > 0 ? { Dimensions: dimensions } : {}),
  Statistic: stat,
  Period: period,
});
/** A percentile is an ExtendedStatistic of the alarm, not a Statistic. */
/** @type {(namespace: string, name: string, dimensions: Dimensions, stat: string) => MetricOf} */
const percentile = (namespace, name, dimensions, stat) => (period) => ({
  Namespace: namespace,
  MetricName: name,
  Dimensions: dimensions,
  ExtendedStatistic: stat,
  Period: period,
});
/** @type {(id: string, namespace: string, name: string, dimensions: Dimensions, stat: string) => MetricOf} */
const query = (id, namespace, name, dimensions, stat) => (period) => ({
  Id: id,
  ReturnData: false,
  MetricStat: { Metric: { Namespace: namespace, MetricName: name, ...(dimensions.length > 0 ? { Dimensions: dimensions } : {}) }, Period: period, Stat: stat },
});
/** @type {(expression: string, label: string, queries: MetricOf[]) => MetricOf} */
const math = (expression, label, queries) => (period) => ({
  Metrics: [...queries.map((q) => q(period)), { Id: "result", Expression: expression, Label: label, ReturnData: true }],
});

/**
 * `functions`: [{ name, logicalId, timeout }] of the template; `tables`: [{ id, indexes }];
 * `destinations`: the alarm actions (topic ARNs or Refs). Returns { logicalId: resource }.
 * @param {OperationsSettings} settings
 * @param {{ functions: { name: string, logicalId: string, timeout: number }[], tables: { id: string, indexes: string[] }[], httpApi?: string, websocketApi?: string, streamFunction?: string, failureQueue?: string, fanoutQueue?: string, fanoutDeadLetters?: string, migrationQueue?: string, sendsMail: boolean, destinations: unknown[] }} parts
 * @returns {Record<string, CfnResource>}
 */
export function alarmResources(
  settings,
  { functions, tables, httpApi, websocketApi, streamFunction, failureQueue, fanoutQueue, fanoutDeadLetters, migrationQueue, sendsMail, destinations },
) {
  const a = settings.alarms;
  const context = { settings, destinations };
  /** @type {Record<string, CfnResource>} */
  const out = {};
  const see = (/** @type {string} */ section) => `What to do: docs/operating.md, "${section}".`;
  const { periodSeconds: period, evaluationPeriods: n, datapointsToAlarm: m, minRequests } = settings.evaluation;
  const window = `${m} of ${n} periods of ${period} s`;

  if (httpApi) {
    const dims = [
      { Name: "ApiId", Value: { Ref: httpApi } },
      { Name: "Stage", Value: "$default" },
    ];
    if (a.api5xxPercent !== undefined) {
      // Below minRequests in a period the rate says nothing (1 failure of 2 requests is 50%).
      out.AlarmApi5xxRate = alarm(
        context,
        "api-5xx-rate",
        `${a.api5xxPercent}% or more of the HTTP API's answers were 5xx in ${window} (periods of ${minRequests} requests or more). ${see("API 5xx rate")}`,
        a.api5xxPercent,
        math(`IF(requests >= ${minRequests}, 100 * errors / requests, 0)`, "5xx %", [
          query("errors", "AWS/ApiGateway", "5xx", dims, "Sum"),
          query("requests", "AWS/ApiGateway", "Count", dims, "Sum"),
        ]),
      );
    }
    if (a.apiLatencyPercentOfTimeout !== undefined) {
      const limit = Math.round((API_TIMEOUT_MS * a.apiLatencyPercentOfTimeout) / 100);
      out.AlarmApiLatencyP99 = alarm(
        context,
        "api-latency-p99",
        `The HTTP API's p99 latency reached ${limit} ms (${a.apiLatencyPercentOfTimeout}% of API Gateway's 30 s timeout) in ${window}. ${see("API p99 latency")}`,
        limit,
        percentile("AWS/ApiGateway", "Latency", dims, "p99"),
      );
    }
  }

  if (websocketApi && a.wsErrorPercent !== undefined) {
    const dims = [{ Name: "ApiId", Value: { Ref: websocketApi } }];
    out.AlarmWebSocketErrors = alarm(
      context,
      "websocket-errors",
      `${a.wsErrorPercent}% or more of the WebSocket API's connects and messages failed in its integration (the ws function) in ${window} (periods of ${minRequests} or more). ${see("WebSocket errors")}`,
      a.wsErrorPercent,
      math(`IF(connects + messages >= ${minRequests}, 100 * (integration + execution) / (connects + messages), 0)`, "failed %", [
        query("integration", "AWS/ApiGateway", "IntegrationError", dims, "Sum"),
        query("execution", "AWS/ApiGateway", "ExecutionError", dims, "Sum"),
        query("connects", "AWS/ApiGateway", "ConnectCount", dims, "Sum"),
        query("messages", "AWS/ApiGateway", "MessageCount", dims, "Sum"),
      ]),
    );
  }

  /** @type {Map<string, typeof functions>} */
  const groups = new Map();
  for (const fn of functions) {
    const group = functionGroup(fn.name);
    groups.set(group, [...(groups.get(group) ?? []), fn]);
  }
  for (const [group, members] of groups) {
    // Within a chunk every function has the same timeout, so "near the timeout" is one threshold.
    /** @type {Map<number, typeof functions>} */
    const byTimeout = new Map();
    for (const fn of members) byTimeout.set(fn.timeout, [...(byTimeout.get(fn.timeout) ?? []), fn]);
    const parts = [...byTimeout.values()].flatMap((same) => chunks(same, MAX_METRICS));
    parts.forEach((part, index) => {
      const suffix = parts.length > 1 ? `${index + 1}` : "";
      const label = `${group}${suffix ? ` (part ${suffix} of ${parts.length})` : ""}`;
      const ids = (/** @type {string} */ metric, /** @type {string} */ stat) =>
        part.map((fn, i) => query(`m${i}`, "AWS/Lambda", metric, [{ Name: "FunctionName", Value: { Ref: fn.logicalId } }], stat));
      const list = part.map((_, i) => `m${i}`).join(", ");
      const id = `${pascal(group)}${suffix}`;
      // The migration runs once an hour: its failures are counted by its failure queue's alarm.
      if (a.lambdaErrors !== undefined && group !== "migrate") {
        out[`AlarmLambdaErrors${id}`] = alarm(
          context,
          `lambda-errors-${group}${suffix}`,
          `The ${label} functions failed ${a.lambdaErrors} or more times a period in ${window}. ${see("Lambda errors")}`,
          a.lambdaErrors,
          math(`SUM([${list}])`, "errors", ids("Errors", "Sum")),
        );
      }
      if (a.lambdaThrottles !== undefined) {
        out[`AlarmLambdaThrottles${id}`] = alarm(
          context,
          `lambda-throttles-${group}${suffix}`,
          `The ${label} functions were throttled ${a.lambdaThrottles} or more times a period in ${window}. ${see("Lambda throttles")}`,
          a.lambdaThrottles,
          math(`SUM([${list}])`, "throttles", ids("Throttles", "Sum")),
        );
      }
      const timeout = part[0]?.timeout ?? 0;
      if (a.durationPercentOfTimeout !== undefined) {
        const timeoutMs = timeout * 1000;
        const limit = Math.round((timeoutMs * a.durationPercentOfTimeout) / 100);
        const fact = group === "migrate";
        out[`AlarmDurationNearTimeout${id}`] = alarm(
          context,
          `duration-near-timeout-${group}${suffix}`,
          `A ${label} function's p99 duration reached ${a.durationPercentOfTimeout}% of its ${timeout} s timeout (${limit} ms)${fact ? "" : ` in ${window}`}. ${see("Duration near the timeout")}`,
          limit,
          math(`MAX([${list}])`, "p99 duration (ms)", ids("Duration", "p99")),
          { fact },
        );
      }
    });
  }

  if (a.accountConcurrencyPercent !== undefined) {
    const limit = Math.round((settings.accountConcurrencyLimit * a.accountConcurrencyPercent) / 100);
    // ClaimedAccountConcurrency counts reserved concurrency as used: what is left for on-demand calls.
    out.AlarmAccountConcurrency = alarm(
      context,
      "account-concurrency",
      `The account's claimed Lambda concurrency in this region reached ${limit} (${a.accountConcurrencyPercent}% of the ${settings.accountConcurrencyLimit} set as accountConcurrencyLimit) in ${window}. ${see("Account concurrency")}`,
      limit,
      single("AWS/Lambda", "ClaimedAccountConcurrency", [], "Maximum"),
    );
  }

  for (const { id: table, indexes } of tables) {
    const dims = [{ Name: "TableName", Value: { Ref: table } }];
    const name = table.replace(/Table$/, "");
    if (a.dynamodbThrottles !== undefined) {
      out[`AlarmDynamoDBThrottles${name}`] = alarm(
        context,
        `dynamodb-throttles-${name}`,
        `Table ${name}: ${a.dynamodbThrottles} or more throttled reads and writes a period in ${window}. ${see("DynamoDB throttles")}`,
        a.dynamodbThrottles,
        math("reads + writes", "throttle events", [
          query("reads", "AWS/DynamoDB", "ReadThrottleEvents", dims, "Sum"),
          query("writes", "AWS/DynamoDB", "WriteThrottleEvents", dims, "Sum"),
        ]),
      );
    }
    const indexThrottles = a.dynamodbIndexThrottles;
    if (indexThrottles !== undefined && indexes.length > 0) {
      // Two metrics an index: five indexes an alarm.
      chunks(indexes, MAX_METRICS / 2).forEach((part, index, all) => {
        const suffix = all.length > 1 ? `${index + 1}` : "";
        const queries = part.flatMap((indexName, i) => {
          const idx = [...dims, { Name: "GlobalSecondaryIndexName", Value: indexName }];
          return [query(`r${i}`, "AWS/DynamoDB", "ReadThrottleEvents", idx, "Sum"), query(`w${i}`, "AWS/DynamoDB", "WriteThrottleEvents", idx, "Sum")];
        });
        out[`AlarmDynamoDBIndexThrottles${name}${suffix}`] = alarm(
          context,
          `dynamodb-index-throttles-${name}${suffix}`,
          `Table ${name}, indexes ${part.join(", ")}: ${indexThrottles} or more throttled reads and writes a period in ${window}. ${see("DynamoDB index throttles")}`,
          indexThrottles,
          math(`SUM([${part.flatMap((_, i) => [`r${i}`, `w${i}`]).join(", ")}])`, "index throttle events", queries),
        );
      });
    }
    if (a.dynamodbSystemErrors !== undefined) {
      const ops = DYNAMODB_OPERATIONS.map((op, i) => query(`m${i}`, "AWS/DynamoDB", "SystemErrors", [...dims, { Name: "Operation", Value: op }], "Sum"));
      out[`AlarmDynamoDBSystemErrors${name}`] = alarm(
        context,
        `dynamodb-system-errors-${name}`,
        `Table ${name}: DynamoDB answered ${a.dynamodbSystemErrors} or more requests a period with a 500 in ${window}. ${see("DynamoDB system errors")}`,
        a.dynamodbSystemErrors,
        math(`SUM([${DYNAMODB_OPERATIONS.map((_, i) => `m${i}`).join(", ")}])`, "system errors", ops),
      );
    }
  }

  if (a.streamIteratorAgeMs !== undefined && streamFunction) {
    out.AlarmStreamIteratorAge = alarm(
      context,
      "stream-iterator-age",
      `The stream consumer ran ${a.streamIteratorAgeMs} ms or more behind the writes in ${window}. ${see("Stream iterator age")}`,
      a.streamIteratorAgeMs,
      single("AWS/Lambda", "IteratorAge", [{ Name: "FunctionName", Value: { Ref: streamFunction } }], "Maximum"),
    );
  }
  if (a.streamFailures !== undefined && failureQueue) {
    out.AlarmStreamFailures = alarm(
      context,
      "stream-failures",
      `${a.streamFailures} or more stream batches wait in the failure queue. ${see("Stream failure queue")}`,
      a.streamFailures,
      single("AWS/SQS", "ApproximateNumberOfMessagesVisible", [{ Name: "QueueName", Value: { "Fn::GetAtt": [failureQueue, "QueueName"] } }], "Maximum"),
      { fact: true },
    );
  }
  if (a.fanoutQueueAgeS !== undefined && fanoutQueue) {
    out.AlarmFanoutQueueAge = alarm(
      context,
      "fanout-queue-age",
      `A fan-out share waited ${a.fanoutQueueAgeS} s or more for a worker in ${window}. ${see("Fan-out queue age")}`,
      a.fanoutQueueAgeS,
      single("AWS/SQS", "ApproximateAgeOfOldestMessage", [{ Name: "QueueName", Value: { "Fn::GetAtt": [fanoutQueue, "QueueName"] } }], "Maximum"),
    );
  }
  if (a.fanoutFailures !== undefined && fanoutDeadLetters) {
    out.AlarmFanoutFailures = alarm(
      context,
      "fanout-failures",
      `${a.fanoutFailures} or more fan-out shares failed every attempt and wait in the fan-out dead-letter queue. ${see("Fan-out dead letters")}`,
      a.fanoutFailures,
      single("AWS/SQS", "ApproximateNumberOfMessagesVisible", [{ Name: "QueueName", Value: { "Fn::GetAtt": [fanoutDeadLetters, "QueueName"] } }], "Maximum"),
      { fact: true },
    );
  }
  if (a.migrationFailures !== undefined && migrationQueue) {
    out.AlarmMigrationFailures = alarm(
      context,
      "migration-failures",
      `${a.migrationFailures} or more scheduled migration runs failed (or never ran) and wait in the migration's failure queue. ${see("Migration failure queue")}`,
      a.migrationFailures,
      single("AWS/SQS", "ApproximateNumberOfMessagesVisible", [{ Name: "QueueName", Value: { "Fn::GetAtt": [migrationQueue, "QueueName"] } }], "Maximum"),
      { fact: true },
    );
  }
  if (sendsMail) {
    // SES publishes these for the account and region, as a fraction; it reviews an account at 5%
    // bounces or 0.1% complaints.
    if (a.sesBounceRatePercent !== undefined) {
      out.AlarmSesBounceRate = alarm(
        context,
        "ses-bounce-rate",
        `The account's SES bounce rate reached ${a.sesBounceRatePercent}%. ${see("SES bounces and complaints")}`,
        a.sesBounceRatePercent / 100,
        single("AWS/SES", "Reputation.BounceRate", [], "Maximum"),
        { fact: true },
      );
    }
    if (a.sesComplaintRatePercent !== undefined) {
      out.AlarmSesComplaintRate = alarm(
        context,
        "ses-complaint-rate",
        `The account's SES complaint rate reached ${a.sesComplaintRatePercent}%. ${see("SES bounces and complaints")}`,
        a.sesComplaintRatePercent / 100,
        single("AWS/SES", "Reputation.ComplaintRate", [], "Maximum"),
        { fact: true },
      );
    }
  }
  if (a.refreshTokenReuse !== undefined && settings.metrics !== false) {
    out.AlarmRefreshTokenReuse = alarm(
      context,
      "refresh-token-reuse",
      `${a.refreshTokenReuse} or more refresh tokens came back after use in 5 minutes (families revoked). ${see("Refresh-token reuse")}`,
      a.refreshTokenReuse,
      single(settings.namespace, "RefreshTokenReuse", [], "Sum"),
      { fact: true },
    );
  }
  if (a.lockouts !== undefined && settings.metrics !== false) {
    out.AlarmLockouts = alarm(
      context,
      "lockouts",
      `${a.lockouts} or more logins were refused by an account lock in 5 minutes. ${see("Lockouts")}`,
      a.lockouts,
      single(settings.namespace, "Lockouts", [], "Sum"),
      { fact: true },
    );
  }
  return out;
}
