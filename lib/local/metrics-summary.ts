/**
 * `npm run metrics`: what the metric lines of the last minutes say, as CloudWatch would show it:
 * requests by route and status class with p50/p99 latency, DynamoDB calls and capacity, refused
 * requests, and the counted events. Reads the EMF lines `npm start` appends to .data/metrics.jsonl.
 */
interface Line {
  _aws?: { Timestamp?: number };
  Service?: string;
  Route?: string;
  StatusClass?: string;
  status?: number;
  Latency?: number;
  DynamoDBCalls?: number;
  DynamoDBReadUnits?: number;
  DynamoDBWriteUnits?: number;
  DynamoDBThrottles?: number;
  [event: string]: unknown;
}

interface RouteFigures {
  count: number;
  classes: Record<string, number>;
  latencies: number[];
  calls: number;
  read: number;
  write: number;
  throttles: number;
}

/** The nearest-rank percentile, as CloudWatch computes pNN over raw values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Refused for a limit, whichever face answered: an HTTP 429 or 413, a GraphQL or subscription refusal. */
const REFUSALS = ["GraphQLRefused", "SubscriptionsRefused", "Lockouts"] as const;
const FIGURES = new Set(["Requests", "Invocations", "Latency", "DynamoDBCalls", "DynamoDBReadUnits", "DynamoDBWriteUnits", "DynamoDBThrottles", "status", "requestId", "traceId"]);

export interface Summary {
  since: number;
  requests: number;
  routes: Map<string, RouteFigures>;
  refused: { http: number } & Record<(typeof REFUSALS)[number], number>;
  events: Map<string, number>;
}

export function summarise(text: string, since: number): Summary {
  const summary: Summary = { since, requests: 0, routes: new Map(), refused: { http: 0, GraphQLRefused: 0, SubscriptionsRefused: 0, Lockouts: 0 }, events: new Map() };
  for (const raw of text.split("\n")) {
    if (!raw.startsWith("{")) continue;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      continue; // a line cut short by a stopped process
    }
    if ((line._aws?.Timestamp ?? 0) < since) continue;
    const key = line.Route !== undefined ? `${line.Service} ${line.Route}` : `${line.Service} (invocation)`;
    let figures = summary.routes.get(key);
    if (!figures) summary.routes.set(key, (figures = { count: 0, classes: {}, latencies: [], calls: 0, read: 0, write: 0, throttles: 0 }));
    figures.count++;
    if (line.StatusClass) {
      summary.requests++;
      figures.classes[line.StatusClass] = (figures.classes[line.StatusClass] ?? 0) + 1;
    }
    if (typeof line.Latency === "number") figures.latencies.push(line.Latency);
    figures.calls += line.DynamoDBCalls ?? 0;
    figures.read += line.DynamoDBReadUnits ?? 0;
    figures.write += line.DynamoDBWriteUnits ?? 0;
    figures.throttles += line.DynamoDBThrottles ?? 0;
    if (line.status === 429 || line.status === 413) summary.refused.http++;
    for (const [name, value] of Object.entries(line)) {
      if (typeof value !== "number" || FIGURES.has(name)) continue;
      summary.events.set(name, (summary.events.get(name) ?? 0) + value);
      if ((REFUSALS as readonly string[]).includes(name)) summary.refused[name as (typeof REFUSALS)[number]] += value;
    }
  }
  return summary;
}

const fixed = (n: number): string => (Number.isNaN(n) ? "-" : n < 10 ? n.toFixed(1) : String(Math.round(n)));

export function render(summary: Summary, minutes: number): string {
  const out: string[] = [];
  out.push(`Last ${minutes} min: ${summary.requests} requests`);
  const rows = [...summary.routes].sort((a, b) => b[1].count - a[1].count);
  const width = Math.max(20, ...rows.map(([k]) => k.length));
  out.push(`${"route".padEnd(width)}  count    2xx  4xx  5xx   p50 ms   p99 ms  dynamodb  rcu      wcu      throttled`);
  for (const [key, f] of rows) {
    const c = (k: string) => String(f.classes[k] ?? 0).padStart(4);
    out.push(
      `${key.padEnd(width)}  ${String(f.count).padStart(5)}  ${c("2xx")} ${c("4xx")} ${c("5xx")}  ${fixed(percentile(f.latencies, 50)).padStart(7)}  ${fixed(percentile(f.latencies, 99)).padStart(7)}` +
        `  ${String(f.calls).padStart(8)}  ${fixed(f.read).padEnd(7)}  ${fixed(f.write).padEnd(7)}  ${f.throttles}`,
    );
  }
  const r = summary.refused;
  out.push(`Refused: ${r.http} HTTP 429/413, ${r.GraphQLRefused} GraphQL operations over a limit, ${r.SubscriptionsRefused} subscriptions over a limit, ${r.Lockouts} logins locked out`);
  if (summary.events.size > 0) out.push(`Events: ${[...summary.events].map(([k, v]) => `${k} ${fixed(v)}`).join(", ")}`);
  return out.join("\n");
}
