// The operations settings of a deploy (serverless.yml, custom.operations; every value a deploy
// parameter): read once, checked, with the defaults docs/operating.md documents.

/** Each alarm: its default threshold and what the threshold counts (docs/operating.md, "Alarms"). */
export const ALARM_DEFAULTS = {
  api5xxPercent: 5,
  lambdaErrors: 1,
  lambdaThrottles: 1,
  durationPercentOfTimeout: 80,
  dynamodbThrottles: 5,
  dynamodbSystemErrors: 1,
  streamIteratorAgeMs: 60_000,
  streamFailures: 1,
  refreshTokenReuse: 5,
  lockouts: 20,
};

/** The retention periods CloudWatch Logs accepts. */
const RETENTION_DAYS = new Set([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653]);

const OFF = new Set(["off", "false", "none", "disabled"]);

function number(name, value, fallback) {
  if (value === undefined || value === null || value === "") return fallback;
  if (OFF.has(String(value).toLowerCase())) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`operations: ${name} must be a number of at least 0 or "off" (got ${JSON.stringify(value)})`);
  return n;
}

function flag(name, value) {
  if (value === undefined || value === null || value === "" || value === false) return false;
  if (value === true) return true;
  const text = String(value).toLowerCase();
  if (text === "true") return true;
  if (text === "false") return false;
  throw new Error(`operations: ${name} must be true or false (got ${JSON.stringify(value)})`);
}

/**
 * `raw` is custom.operations as the framework resolved it. Throws naming the setting that is wrong:
 * a typo in a threshold must stop the deploy, not ship an alarm that never fires.
 */
export function operationsSettings(raw = {}) {
  const alarms = {};
  for (const [name, fallback] of Object.entries(ALARM_DEFAULTS)) alarms[name] = number(`alarms.${name}`, raw.alarms?.[name], fallback);
  const unknown = Object.keys(raw.alarms ?? {}).filter((name) => !(name in ALARM_DEFAULTS));
  if (unknown.length > 0) throw new Error(`operations: unknown alarm setting ${unknown.join(", ")} (known: ${Object.keys(ALARM_DEFAULTS).join(", ")})`);
  const retention = number("logRetentionDays", raw.logRetentionDays, 30);
  if (retention !== undefined && !RETENTION_DAYS.has(retention)) throw new Error(`operations: logRetentionDays must be one of CloudWatch's ${[...RETENTION_DAYS].join(", ")} or "off" (got ${retention})`);
  const topic = raw.alarmTopicArn === undefined || raw.alarmTopicArn === null || raw.alarmTopicArn === "" ? undefined : String(raw.alarmTopicArn);
  if (topic !== undefined && !/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]{1,256}$/.test(topic)) throw new Error(`operations: alarmTopicArn must be an SNS topic ARN (got ${JSON.stringify(topic)})`);
  return {
    namespace: String(raw.namespace ?? "modelrest"),
    logRetentionDays: retention,
    // false: no metric line is written (METRICS=off), and the alarms and panels on the service's
    // own metrics are left out: they would never see data.
    metrics: raw.metrics === undefined ? true : flag("metrics", raw.metrics),
    tracing: flag("tracing", raw.tracing),
    alarmTopicArn: topic,
    dashboard: raw.dashboard === undefined ? true : flag("dashboard", raw.dashboard),
    alarms,
  };
}
