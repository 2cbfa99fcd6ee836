// @ts-check
// The stage's CloudWatch dashboard (docs/operating.md, "Dashboard"), built from the same metrics as
// the alarms: the service's EMF metrics, and AWS's own for Lambda, DynamoDB and the stream.

const W = 12;
const H = 6;

/** `SEARCH` finds every metric of a dimension set (every route, every function) without listing them. */
const search = (/** @type {string} */ expression, /** @type {string} */ stat, /** @type {string} */ label) => ({
  expression: `SEARCH('${expression}', '${stat}', 300)`,
  label,
  id: label.replace(/\W/g, "").toLowerCase(),
});

/**
 * @param {string} title
 * @param {unknown[]} metrics
 */
function graph(title, metrics, extra = {}) {
  return { type: "metric", width: W, height: H, properties: { title, view: "timeSeries", region: "${AWS::Region}", period: 300, metrics, ...extra } };
}

/**
 * The dashboard's body, to put in `Fn::Sub` (its only variable is the region). `functionPrefix` is
 * `<service>-<stage>-`: every function of the stage, and nothing else's, matches it.
 * @param {string} namespace
 * @param {string} functionPrefix
 * @returns {string}
 */
export function dashboardBody(namespace, functionPrefix, ownMetrics = true) {
  const ns = namespace;
  const own = (/** @type {string} */ name, stat = "Sum", label = name) => [ns, name, { stat, label }];
  const widgets = [
    graph("Requests by service and status class", [[search(`{${ns},Service,Route,StatusClass} MetricName="Requests"`, "Sum", "requests")]]),
    graph("Latency p50 / p99 (ms), every request", [own("Latency", "p50", "p50"), own("Latency", "p99", "p99")]),
    graph("5xx by route", [[search(`{${ns},Service,Route,StatusClass} MetricName="Requests" StatusClass="5xx"`, "Sum", "5xx")]]),
    graph("Latency p99 by route (ms)", [[search(`{${ns},Service,Route,StatusClass} MetricName="Latency" StatusClass="2xx"`, "p99", "p99")]]),
    graph("Lambda errors and throttles", [
      [search(`{AWS/Lambda,FunctionName} MetricName="Errors" ${functionPrefix}`, "Sum", "errors")],
      [search(`{AWS/Lambda,FunctionName} MetricName="Throttles" ${functionPrefix}`, "Sum", "throttles")],
    ]),
    graph("DynamoDB calls and capacity units (all requests)", [
      own("DynamoDBCalls"),
      own("DynamoDBReadUnits"),
      own("DynamoDBWriteUnits"),
      own("DynamoDBThrottles"),
    ]),
    graph("DynamoDB consumed capacity by table", [
      [search(`{AWS/DynamoDB,TableName} MetricName="ConsumedReadCapacityUnits" ${functionPrefix}`, "Sum", "read units")],
      [search(`{AWS/DynamoDB,TableName} MetricName="ConsumedWriteCapacityUnits" ${functionPrefix}`, "Sum", "write units")],
    ]),
    graph("Refused by limits", [
      own("GraphQLRefused"),
      own("SubscriptionsRefused"),
      [search(`{${ns},Service,Route,StatusClass} MetricName="Requests" StatusClass="4xx"`, "Sum", "4xx")],
    ]),
    graph("WebSocket", [own("WebSocketConnections"), own("WebSocketDisconnections"), own("Subscriptions"), own("Deliveries"), own("StaleConnections")]),
    graph("Stream", [own("StreamRecords"), own("StreamFailures"), own("StreamBatchAge", "Maximum", "batch age (ms)")]),
    graph("Authentication", [own("Logins"), own("LoginFailures"), own("Lockouts"), own("RefreshTokenReuse"), own("MailsSent"), own("MailsThrottled")]),
    graph("Migration", [own("MigratedIdents"), own("MigratedUsers"), own("MigrationFailures")]),
  ];
  // Without the service's own metrics (`metrics: false`) only the panels on AWS's metrics are left.
  const shown = ownMetrics ? widgets : widgets.filter((w) => !JSON.stringify(w.properties.metrics).includes(`${ns}`));
  shown.forEach((w, i) => Object.assign(w, { x: (i % 2) * W, y: Math.floor(i / 2) * H }));
  return JSON.stringify({ widgets: shown });
}
