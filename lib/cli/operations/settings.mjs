// @ts-check
// The operations settings of a deploy (serverless.yml, custom.operations; every value a deploy
// parameter): read once, checked, with the defaults docs/operating.md documents.
/** @import { ConfigValue } from "../../core/serverless-host.ts" */

/**
 * @typedef {object} OperationsSettings
 * @property {string} namespace
 * @property {number | undefined} logRetentionDays
 * @property {boolean} metrics
 * @property {boolean} tracing
 * @property {string | undefined} alarmTopicArn
 * @property {string | undefined} alarmEmail
 * @property {boolean} dashboard
 * @property {boolean} graphiql
 * @property {boolean} testRoutes
 * @property {string[]} testServices
 * @property {Record<string, string>} tags
 * @property {number} accountConcurrencyLimit
 * @property {{ periodSeconds: number, evaluationPeriods: number, datapointsToAlarm: number, minRequests: number }} evaluation
 * @property {EdgeSettings} edge
 * @property {Record<AlarmName, number | undefined>} alarms
 */
/**
 * @typedef {object} EdgeSettings
 * @property {number | undefined} throttleRate
 * @property {number | undefined} throttleBurst
 * @property {number | undefined} authThrottleRate
 * @property {number | undefined} authThrottleBurst
 * @property {number | undefined} streamReservedConcurrency
 * @property {number | undefined} wsReservedConcurrency
 * @property {boolean} tableDeletionProtection
 * @property {boolean} accessLogs
 * @property {"create" | "existing"} apiGatewayLogsRole
 */
/** @typedef {keyof typeof ALARM_DEFAULTS} AlarmName */

/** Each alarm: its default threshold and what the threshold counts (docs/operating.md, "Alarms"). */
export const ALARM_DEFAULTS = {
  api5xxPercent: 5,
  apiLatencyPercentOfTimeout: 80,
  wsErrorPercent: 5,
  lambdaErrors: 3,
  lambdaThrottles: 5,
  durationPercentOfTimeout: 80,
  accountConcurrencyPercent: 80,
  dynamodbThrottles: 5,
  dynamodbIndexThrottles: 5,
  dynamodbSystemErrors: 1,
  streamIteratorAgeMs: 60_000,
  streamFailures: 1,
  fanoutQueueAgeS: 30,
  fanoutFailures: 1,
  migrationFailures: 1,
  sesBounceRatePercent: 5,
  sesComplaintRatePercent: 0.1,
  refreshTokenReuse: 5,
  lockouts: 20,
};

/** How the alarms evaluate: M of N periods of this length (docs/operating.md, "How the alarms evaluate"). */
export const EVALUATION_DEFAULTS = { periodSeconds: 60, evaluationPeriods: 5, datapointsToAlarm: 3, minRequests: 20 };

/** The edge's defaults (docs/operating.md, "Edge protection"). */
export const EDGE_DEFAULTS = { throttleRate: 200, throttleBurst: 400, authThrottleRate: 20, authThrottleBurst: 40 };

/** The retention periods CloudWatch Logs accepts. */
const RETENTION_DAYS = new Set([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653]);
/** The periods a standard-resolution alarm accepts: a multiple of 60 s. */
const MAX_EVALUATION_SECONDS = 86_400;

const OFF = new Set(["off", "false", "none", "disabled"]);
const unset = (/** @type {unknown} */ value) => value === undefined || value === null || value === "" || value === "null";

/**
 * @param {string} name
 * @param {unknown} value
 * @param {number | undefined} fallback
 * @returns {number | undefined}
 */
function number(name, value, fallback) {
  if (unset(value)) return fallback;
  if (OFF.has(String(value).toLowerCase())) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`operations: ${name} must be a number of at least 0 or "off" (got ${JSON.stringify(value)})`);
  return n;
}

/**
 * @param {string} name
 * @param {unknown} value
 * @param {number | undefined} fallback
 * @param {number} min
 * @param {number} max
 */
function whole(name, value, fallback, min, max) {
  const n = number(name, value, fallback);
  if (n === undefined) return undefined;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`operations: ${name} must be a whole number from ${min} to ${max} or "off" (got ${JSON.stringify(value)})`);
  return n;
}

/**
 * @param {string} name
 * @param {unknown} value
 * @returns {boolean}
 */
function flag(name, value, fallback = false) {
  if (unset(value)) return fallback;
  if (value === true || value === false) return value;
  const text = String(value).toLowerCase();
  if (text === "true") return true;
  if (text === "false") return false;
  throw new Error(`operations: ${name} must be true or false (got ${JSON.stringify(value)})`);
}

/** @param {unknown} value */
function text(value) {
  return unset(value) ? undefined : String(value);
}

/** `team=web,cost-center=42`: the tags every resource gets besides service and stage. */
function tags(/** @type {unknown} */ value) {
  const raw = text(value);
  if (raw === undefined) return {};
  /** @type {Record<string, string>} */
  const out = {};
  for (const pair of raw
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const at = pair.indexOf("=");
    const key = at > 0 ? pair.slice(0, at).trim() : "";
    const val = at > 0 ? pair.slice(at + 1).trim() : "";
    // CloudFormation's and the tagging API's character set, and no aws: prefix (reserved).
    if (!/^[\p{L}\p{N} _.:/=+\-@]{1,128}$/u.test(key) || key.toLowerCase().startsWith("aws:") || !/^[\p{L}\p{N} _.:/=+\-@]{0,256}$/u.test(val)) {
      throw new Error(`operations: tags must be key=value pairs separated by commas (got ${JSON.stringify(pair)})`);
    }
    out[key] = val;
  }
  return out;
}

/**
 * `raw` is custom.operations as the framework resolved it. Throws naming the setting that is wrong:
 * a typo in a threshold must stop the deploy, not ship an alarm that never fires.
 * @param {ConfigValue} [raw]
 * @returns {OperationsSettings}
 */
export function operationsSettings(raw = {}) {
  /** @type {Record<string, number | undefined>} */
  const alarms = {};
  for (const [name, fallback] of Object.entries(ALARM_DEFAULTS)) alarms[name] = number(`alarms.${name}`, raw.alarms?.[name], fallback);
  const unknown = Object.keys(raw.alarms ?? {}).filter((name) => !(name in ALARM_DEFAULTS));
  if (unknown.length > 0) throw new Error(`operations: unknown alarm setting ${unknown.join(", ")} (known: ${Object.keys(ALARM_DEFAULTS).join(", ")})`);
  const retention = number("logRetentionDays", raw.logRetentionDays, 30);
  if (retention !== undefined && !RETENTION_DAYS.has(retention))
    throw new Error(`operations: logRetentionDays must be one of CloudWatch's ${[...RETENTION_DAYS].join(", ")} or "off" (got ${retention})`);

  const topic = text(raw.alarmTopicArn);
  if (topic !== undefined && !/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]{1,256}$/.test(topic))
    throw new Error(`operations: alarmTopicArn must be an SNS topic ARN (got ${JSON.stringify(topic)})`);
  const email = text(raw.alarmEmail);
  if (email !== undefined && !/^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/.test(email))
    throw new Error(`operations: alarmEmail must be one email address (got ${JSON.stringify(email)})`);

  const evaluation = {
    periodSeconds: whole("alarmPeriodSeconds", raw.evaluation?.periodSeconds, EVALUATION_DEFAULTS.periodSeconds, 60, 21_600),
    evaluationPeriods: whole("alarmEvaluationPeriods", raw.evaluation?.evaluationPeriods, EVALUATION_DEFAULTS.evaluationPeriods, 1, 1440),
    datapointsToAlarm: whole("alarmDatapointsToAlarm", raw.evaluation?.datapointsToAlarm, EVALUATION_DEFAULTS.datapointsToAlarm, 1, 1440),
    minRequests: number("alarmMinRequests", raw.evaluation?.minRequests, EVALUATION_DEFAULTS.minRequests) ?? 0,
  };
  if (evaluation.periodSeconds === undefined || evaluation.evaluationPeriods === undefined || evaluation.datapointsToAlarm === undefined) {
    throw new Error("operations: alarmPeriodSeconds, alarmEvaluationPeriods and alarmDatapointsToAlarm cannot be off");
  }
  if (evaluation.periodSeconds % 60 !== 0) throw new Error(`operations: alarmPeriodSeconds must be a multiple of 60 (got ${evaluation.periodSeconds})`);
  if (evaluation.datapointsToAlarm > evaluation.evaluationPeriods) {
    throw new Error(
      `operations: alarmDatapointsToAlarm (${evaluation.datapointsToAlarm}) cannot exceed alarmEvaluationPeriods (${evaluation.evaluationPeriods})`,
    );
  }
  if (evaluation.periodSeconds * evaluation.evaluationPeriods > MAX_EVALUATION_SECONDS) {
    throw new Error(
      `operations: alarmPeriodSeconds × alarmEvaluationPeriods must be at most one day (got ${evaluation.periodSeconds * evaluation.evaluationPeriods} s)`,
    );
  }

  const edge = {
    throttleRate: number("throttleRate", raw.edge?.throttleRate, EDGE_DEFAULTS.throttleRate),
    throttleBurst: whole("throttleBurst", raw.edge?.throttleBurst, EDGE_DEFAULTS.throttleBurst, 0, 5000),
    authThrottleRate: number("authThrottleRate", raw.edge?.authThrottleRate, EDGE_DEFAULTS.authThrottleRate),
    authThrottleBurst: whole("authThrottleBurst", raw.edge?.authThrottleBurst, EDGE_DEFAULTS.authThrottleBurst, 0, 5000),
    // Off unless set: reserving concurrency fails the deploy in an account whose limit is low.
    streamReservedConcurrency: whole("streamReservedConcurrency", raw.edge?.streamReservedConcurrency, undefined, 0, 100_000),
    wsReservedConcurrency: whole("wsReservedConcurrency", raw.edge?.wsReservedConcurrency, undefined, 0, 100_000),
    tableDeletionProtection: flag("tableDeletionProtection", raw.edge?.tableDeletionProtection, true),
    accessLogs: flag("accessLogs", raw.edge?.accessLogs, true),
    apiGatewayLogsRole: text(raw.edge?.apiGatewayLogsRole) ?? "create",
  };
  const { apiGatewayLogsRole } = edge;
  if (apiGatewayLogsRole !== "create" && apiGatewayLogsRole !== "existing") {
    throw new Error(`operations: apiGatewayLogsRole must be "create" or "existing" (got ${JSON.stringify(apiGatewayLogsRole)})`);
  }

  return {
    namespace: String(raw.namespace ?? "modelrest"),
    logRetentionDays: retention,
    // false: no metric line is written (METRICS=off), and the alarms and panels on the service's
    // own metrics are left out: they would never see data.
    metrics: flag("metrics", raw.metrics, true),
    tracing: flag("tracing", raw.tracing),
    alarmTopicArn: topic,
    alarmEmail: email,
    dashboard: flag("dashboard", raw.dashboard, true),
    graphiql: flag("graphiql", raw.graphiql),
    testRoutes: flag("testRoutes", raw.testRoutes),
    testServices: [raw.testServices ?? []].flat().map(String),
    tags: tags(raw.tags),
    // What the account-concurrency alarm compares against: `aws lambda get-account-settings`.
    accountConcurrencyLimit: whole("accountConcurrencyLimit", raw.accountConcurrencyLimit, 1000, 1, 10_000_000) ?? 1000,
    // None is undefined: checked above.
    evaluation: /** @type {OperationsSettings["evaluation"]} */ (evaluation),
    edge: { ...edge, apiGatewayLogsRole },
    alarms: /** @type {Record<AlarmName, number | undefined>} */ (alarms),
  };
}
