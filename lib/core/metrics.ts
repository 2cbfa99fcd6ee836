/**
 * The service's metrics (docs/operating.md, "Metrics"): each invocation tallies what happened
 * (DynamoDB calls and capacity, auth and WebSocket events) on its own state (invocation.ts) and
 * publishes it once as it ends, in embedded metric format: on its request log line in Lambda, on a
 * line of its own otherwise. The request log line's cost (invocationCost) is read from the same tally.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { directivesJson, type Directive, type Unit } from "./emf.ts";
import { currentInvocation, type Invocation } from "./invocation.ts";
import { isLocalOffline, localDataDir } from "./local-secret.ts";
import { traceRoot } from "./trace-header.ts";

/** Events counted wherever they happen, published without dimensions (alarms read them as they are). */
export const EVENT_METRICS = {
  Logins: "Count",
  LoginFailures: "Count",
  Lockouts: "Count",
  RefreshTokenReuse: "Count",
  MailsSent: "Count",
  MailsThrottled: "Count",
  MailsOverSourceShare: "Count",
  MailBudgetSpent: "Count",
  GraphQLRefused: "Count",
  WebSocketConnections: "Count",
  WebSocketDisconnections: "Count",
  Subscriptions: "Count",
  SubscriptionsRefused: "Count",
  Deliveries: "Count",
  DeliveriesPlanned: "Count",
  DeliveryRetries: "Count",
  DeliveriesDropped: "Count",
  DeliveryAge: "Milliseconds",
  WebSocketFrameFailures: "Count",
  StaleConnections: "Count",
  StreamRecords: "Count",
  StreamFailures: "Count",
  StreamBatchAge: "Milliseconds",
  MigratedIdents: "Count",
  MigratedUsers: "Count",
  MigrationFailures: "Count",
  CompileCacheHits: "Count",
  CompileCacheMisses: "Count",
} as const satisfies Record<string, Unit>;

export type EventMetric = keyof typeof EVENT_METRICS;

/** Adds to an event's count (or, for an age, keeps the largest seen in this invocation). */
export function countEvent(name: EventMetric, value = 1): void {
  const invocation = currentInvocation();
  const events = (invocation.events ??= new Map());
  const before = events.get(name) ?? 0;
  events.set(name, EVENT_METRICS[name] === "Milliseconds" ? Math.max(before, value) : before + value);
}

/** One DynamoDB call as the application made it (retries are one call), with its consumed capacity and the items it read. */
export function countDynamoDBCall(readUnits: number, writeUnits: number, itemsRead = 0): void {
  const tally = currentInvocation();
  tally.dynamoCalls += 1;
  tally.readUnits += readUnits;
  tally.writeUnits += writeUnits;
  tally.itemsRead += itemsRead;
}

/** What the current invocation has cost the database so far, for its request log line (what each request costs, per route). */
export interface InvocationCost {
  /** DynamoDB calls sent (retries by the SDK count once). */
  dynamodbCalls: number;
  /** Capacity units DynamoDB reported (ReturnConsumedCapacity: TOTAL), reads and writes together. */
  consumedCapacity: number;
  /** Items DynamoDB evaluated: a Query's or Scan's ScannedCount, else the items returned. */
  itemsRead: number;
}

export function invocationCost(tally: Invocation = currentInvocation()): InvocationCost {
  return { dynamodbCalls: tally.dynamoCalls, consumedCapacity: round(tally.readUnits + tally.writeUnits), itemsRead: tally.itemsRead };
}

/** One DynamoDB attempt refused for throughput (the SDK retries it). */
export function countDynamoDBThrottle(): void {
  currentInvocation().throttles += 1;
}

const DYNAMODB: Directive["metrics"] = [
  { name: "DynamoDBCalls", unit: "Count" },
  { name: "DynamoDBReadUnits", unit: "Count" },
  { name: "DynamoDBWriteUnits", unit: "Count" },
  { name: "DynamoDBThrottles", unit: "Count" },
];
const REQUEST: Directive["metrics"] = [
  { name: "Requests", unit: "Count" },
  { name: "Latency", unit: "Milliseconds" },
];
const INVOCATION: Directive["metrics"] = [
  { name: "Invocations", unit: "Count" },
  { name: "Latency", unit: "Milliseconds" },
];

export interface Finished {
  /** The function kind: rest, graphql, auth, graphiql, ws, stream, migrate. */
  service: string;
  latencyMs: number;
  /**
   * `performance.now()` when it ended, if the caller read it anyway (for the latency): the line's
   * timestamp is then derived from it rather than read from the clock again.
   */
  endedAt?: number;
  requestId?: string;
  /** An HTTP request's route key (`GET /posts/{slug}`) and status; absent for other invocations. */
  route?: string;
  status?: number;
}

/**
 * What the metrics do in this function, read from its environment when the function is built (the
 * invocationHandler, at composition) and carried by each invocation it begins: nothing cached
 * here, so a process that builds another function under another environment (the tests, the bench)
 * gets that function's settings, with nothing to reload.
 */
export interface MetricsSettings {
  enabled: boolean;
  namespace: string;
  offline: boolean;
  file: string;
  readable: boolean;
  tracing: boolean;
}

export function metricsSettings(env: NodeJS.ProcessEnv = process.env): MetricsSettings {
  return {
    // `--param metrics=false` sets METRICS=off on every function (lib/cli/operations-plugin.mjs):
    // the invocation is still tallied (the request log line reads it), no metric line is written.
    enabled: env.METRICS !== "off",
    namespace: env.METRICS_NAMESPACE || "modelrest",
    // Offline, or wherever METRICS_FILE names a file (the test runs name /dev/null): to a file.
    offline: isLocalOffline(env) || Boolean(env.METRICS_FILE),
    file: env.METRICS_FILE || join(localDataDir(env), "metrics.jsonl"),
    // The readable line is a log line: shown at the info level and below, as the access log is.
    readable: ["debug", "info"].includes((env.LOG_LEVEL ?? "info").toLowerCase()),
    // Set on every function by the tracing parameter (lib/cli/operations-plugin.mjs): without
    // tracing there is no trace to find, and no environment lookup on each invocation.
    tracing: env.TRACING === "true",
  };
}

/** X-Ray's trace root for an invocation that begins, when tracing is on; else no lookup at all. */
export function invocationTraceId(settings: MetricsSettings | undefined): string | undefined {
  return settings?.tracing ? traceRoot() : undefined;
}

/** Each shape of line (kind, namespace, events counted) has its directives serialised once. */
const heads = new Map<string, string>();

/** The head of the common lines (no event counted), kept apart from the map: no key to build. */
const plain = { http: { namespace: "", prefix: "" }, invocation: { namespace: "", prefix: "" } };

/** `"_aws":{"CloudWatchMetrics":…,"Timestamp":` for a head: the line's constant start (member order is free in EMF). */
const prefixOf = (head: string): string => `"_aws":{"CloudWatchMetrics":${head},"Timestamp":`;

/** Wall-clock milliseconds of `performance.now()`'s zero, read once. */
const TIME_ORIGIN = performance.timeOrigin;

function headOf(shape: string, namespace: string, directives: () => Directive[], members: readonly string[]): string {
  let head = heads.get(shape);
  if (head === undefined) {
    head = directivesJson(namespace, directives(), (name) => members.includes(name));
    heads.set(shape, head);
  }
  return head;
}

const HTTP_MEMBERS = ["Service", "Route", "StatusClass", "Requests", "Latency", ...DYNAMODB.map((m) => m.name)];
const INVOCATION_MEMBERS = ["Service", "Invocations", "Latency", ...DYNAMODB.map((m) => m.name)];

/**
 * `},"Service":…,"Route":…,"StatusClass":…,"Requests":1,"Latency":` (the text between the
 * timestamp and the latency) by service, then route, then status class (0 for an invocation
 * without one): the same few texts on every request, found without building a key.
 */
const dimensionTexts = new Map<string, Map<string | undefined, string[]>>();
let dimensionCount = 0;

function dimensionsText(done: Finished, http: boolean): string {
  const statusClass = http ? Math.floor((done.status as number) / 100) : 0;
  let routes = dimensionTexts.get(done.service);
  if (routes === undefined) dimensionTexts.set(done.service, (routes = new Map()));
  const route = http ? done.route : undefined;
  let classes = routes.get(route);
  if (classes === undefined) routes.set(route, (classes = []));
  let text = classes[statusClass];
  if (text === undefined) {
    text = `},"Service":${JSON.stringify(done.service)}${http ? `,"Route":${JSON.stringify(done.route)},"StatusClass":"${statusClass}xx","Requests":1` : ',"Invocations":1'},"Latency":`;
    // Routes are the declared route keys, so this stays small; bounded all the same.
    if (dimensionCount++ < 10_000) classes[statusClass] = text;
  }
  return text;
}

/**
 * A number of milliseconds with two decimals, as JSON: written from integers, which convert to
 * text several times faster than a fraction does (this runs on every request).
 */
export function millisecondsText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (!Number.isSafeInteger(hundredths) || hundredths < 0) return String(Math.round(ms * 100) / 100);
  const fraction = hundredths % 100;
  const whole = (hundredths - fraction) / 100;
  return fraction === 0 ? `${whole}` : fraction % 10 === 0 ? `${whole}.${fraction / 10}` : `${whole}.${fraction < 10 ? "0" : ""}${fraction}`;
}

/** The EMF Timestamp as text, made once per millisecond: requests that end in the same one share it. */
let stampedAt = Number.NaN;
let stampText = "";

function timestampText(timestamp: number): string {
  if (timestamp !== stampedAt) {
    stampedAt = timestamp;
    stampText = `${Math.trunc(timestamp)}`;
  }
  return stampText;
}

/**
 * The invocation's EMF line. An HTTP request publishes Requests and Latency per route and status
 * class, and per service with its DynamoDB figures; other invocations per service. Events counted
 * during the invocation are published without dimensions. Built as text: it runs on every request.
 */
export function metricsLine(done: Finished, namespace: string, timestamp = Date.now(), tally: Invocation = currentInvocation()): string {
  return `{${metricsMembers(done, namespace, timestamp, tally, true)}}`;
}

/**
 * The line's members as JSON text without braces (`"_aws":{…},"Service":…`); with `ids`, the
 * request id, trace id and status too, which a request log line carrying them already has.
 */
function metricsMembers(done: Finished, namespace: string, timestamp: number, tally: Invocation, ids: boolean): string {
  const http = done.route !== undefined && done.status !== undefined;
  const kind = http ? "http" : "invocation";
  const names = http ? HTTP_MEMBERS : INVOCATION_MEMBERS;
  const counted = tally.events;
  let events = "";
  let shape = "";
  if (counted !== undefined) {
    for (const [name, value] of counted) {
      shape += ` ${name}`;
      events += `,"${name}":${round(value)}`;
    }
  }
  const common = shape === "" && plain[kind].namespace === namespace ? plain[kind].prefix : undefined;
  const prefix =
    common ??
    prefixOf(
      headOf(
        `${kind} ${namespace}${shape}`,
        namespace,
        () => {
          const own: Directive[] = http
            ? [
                { dimensions: [["Service", "Route", "StatusClass"]], metrics: REQUEST },
                { dimensions: [["Service"], []], metrics: [...REQUEST, ...DYNAMODB] },
              ]
            : [{ dimensions: [["Service"], []], metrics: [...INVOCATION, ...DYNAMODB] }];
          if (counted !== undefined && counted.size > 0)
            own.push({ dimensions: [[]], metrics: [...counted.keys()].map((name) => ({ name, unit: EVENT_METRICS[name] })) });
          return own;
        },
        [...names, ...(counted?.keys() ?? [])],
      ),
    );
  if (shape === "" && common === undefined) plain[kind] = { namespace, prefix };
  let members = `${prefix}${timestampText(timestamp)}${dimensionsText(done, http)}${millisecondsText(done.latencyMs)},"DynamoDBCalls":${tally.dynamoCalls}`;
  members += `,"DynamoDBReadUnits":${round(tally.readUnits)},"DynamoDBWriteUnits":${round(tally.writeUnits)},"DynamoDBThrottles":${tally.throttles}${events}`;
  if (!ids) return members;
  if (done.requestId !== undefined) members += `,"requestId":${JSON.stringify(done.requestId)}`;
  if (tally.traceId !== undefined) members += `,"traceId":${JSON.stringify(tally.traceId)}`;
  if (http) members += `,"status":${done.status}`;
  return members;
}

/**
 * Where an ending invocation's metrics go: "log line" in Lambda (JSON on stdout, where its request
 * log line can carry them: one line per request instead of two, half the bytes CloudWatch Logs
 * ingests and bills), "file" under `npm start` (`.data/metrics.jsonl` for `npm run metrics`, or
 * METRICS_FILE), "off" with `--param metrics=false`.
 */
export function metricsDestination(settings: MetricsSettings | undefined): "log line" | "file" | "off" {
  return settings === undefined || !settings.enabled ? "off" : settings.offline ? "file" : "log line";
}

/** The invocation's metrics as members for its request log line to carry (see metricsDestination). */
export function metricsForLogLine(done: Finished, tally: Invocation): string {
  return metricsMembers(done, tally.metrics?.namespace ?? "modelrest", done.endedAt === undefined ? Date.now() : TIME_ORIGIN + done.endedAt, tally, false);
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * Writes the invocation's metrics on a line of their own: to stdout in Lambda (raw, not through
 * console.log, whose prefix would hide the JSON from CloudWatch's extraction); under `npm start` the
 * EMF line to the metrics file and a readable line to stdout. Nothing when metrics are off. Never
 * throws into a request.
 */
export function writeMetricsLine(done: Finished, tally: Invocation): void {
  try {
    const configured = tally.metrics;
    if (configured === undefined || !configured.enabled) return;
    const line = metricsLine(done, configured.namespace, Date.now(), tally);
    if (!configured.offline) {
      process.stdout.write(`${line}\n`);
    } else {
      mkdirSync(dirname(configured.file), { recursive: true });
      appendFileSync(configured.file, `${line}\n`);
      if (configured.readable) process.stdout.write(`${readable(done, tally)}\n`);
    }
  } catch (error) {
    process.stderr.write(`metrics: could not write the invocation's line: ${(error as Error).message}\n`);
  }
}

/**
 * Writes a metric line of its own (the index advisor's, filter-shapes.ts) where the invocation's
 * line goes: stdout in Lambda, the metrics file under `npm start`; nothing with metrics off, nor
 * outside an invocation a function began (a CLI command's listing), which has no settings.
 */
export function writeMetricLine(build: (namespace: string) => string, tally: Invocation = currentInvocation()): void {
  try {
    const configured = tally.metrics;
    if (configured === undefined || !configured.enabled) return;
    const line = build(configured.namespace);
    if (!configured.offline) process.stdout.write(`${line}\n`);
    else {
      mkdirSync(dirname(configured.file), { recursive: true });
      appendFileSync(configured.file, `${line}\n`);
    }
  } catch (error) {
    process.stderr.write(`metrics: could not write a metric line: ${(error as Error).message}\n`);
  }
}

function readable(done: Finished, tally: Invocation): string {
  const what = done.route === undefined ? done.service : `${done.route} ${done.status}`;
  const events = [...(tally.events ?? [])].map(([name, value]) => ` ${name}=${round(value)}`).join("");
  return `METRIC ${what} ${Math.round(done.latencyMs)}ms dynamodb=${tally.dynamoCalls} rcu=${round(tally.readUnits)} wcu=${round(tally.writeUnits)}${tally.throttles ? ` throttles=${tally.throttles}` : ""}${events}`;
}
