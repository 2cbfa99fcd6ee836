/**
 * `npm run metrics`: what the metric lines of the last minutes say, as CloudWatch would show it:
 * requests by route and status class with p50/p99 latency, DynamoDB calls and capacity, refused
 * requests, the counted events, and the index advisor's worst filter shapes (items read per row
 * returned, with the index that would serve each). Reads the EMF lines `npm start` appends to
 * .data/metrics.jsonl.
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
const FIGURES = new Set([
  "Requests",
  "Invocations",
  "Latency",
  "DynamoDBCalls",
  "DynamoDBReadUnits",
  "DynamoDBWriteUnits",
  "DynamoDBThrottles",
  "status",
  "requestId",
  "traceId",
]);

/** One model's filter shape, as the index advisor's lines (lib/core/filter-shapes.ts) add up. */
export interface ShapeFigures {
  model: string;
  shape: string;
  listings: number;
  itemsRead: number;
  rowsReturned: number;
  advice?: string;
}

export interface Summary {
  since: number;
  shapes: Map<string, ShapeFigures>;
  requests: number;
  routes: Map<string, RouteFigures>;
  refused: { http: number } & Record<(typeof REFUSALS)[number], number>;
  events: Map<string, number>;
}

export function summarise(text: string, since: number): Summary {
  const summary: Summary = {
    since,
    shapes: new Map(),
    requests: 0,
    routes: new Map(),
    refused: { http: 0, GraphQLRefused: 0, SubscriptionsRefused: 0, Lockouts: 0 },
    events: new Map(),
  };
  for (const raw of text.split("\n")) {
    if (!raw.startsWith("{")) continue;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      continue; // a line cut short by a stopped process
    }
    if ((line._aws?.Timestamp ?? 0) < since) continue;
    if (typeof line.FilterShape === "string") {
      addShape(summary, line);
      continue;
    }
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

function addShape(summary: Summary, line: Line): void {
  const model = String(line.Model);
  const key = `${model} ${String(line.FilterShape)}`;
  let figures = summary.shapes.get(key);
  if (!figures) summary.shapes.set(key, (figures = { model, shape: String(line.FilterShape), listings: 0, itemsRead: 0, rowsReturned: 0 }));
  figures.listings++;
  figures.itemsRead += typeof line.ListingItemsRead === "number" ? line.ListingItemsRead : 0;
  figures.rowsReturned += typeof line.ListingRowsReturned === "number" ? line.ListingRowsReturned : 0;
  if (typeof line.IndexAdvice === "string") figures.advice = line.IndexAdvice;
}

/** Items read per row returned; a shape that returned nothing counts every item it read. */
export const itemsPerRow = (f: ShapeFigures): number => f.itemsRead / Math.max(1, f.rowsReturned);

/** The shapes that read most per row returned, worst first; a filter keeping a third or more (at most 3 items per row) needs no index. */
export function worstShapes(summary: Summary, count = 5): ShapeFigures[] {
  return [...summary.shapes.values()]
    .filter((f) => itemsPerRow(f) > 3)
    .sort((a, b) => itemsPerRow(b) - itemsPerRow(a))
    .slice(0, count);
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
  out.push(
    `Refused: ${r.http} HTTP 429/413, ${r.GraphQLRefused} GraphQL operations over a limit, ${r.SubscriptionsRefused} subscriptions over a limit, ${r.Lockouts} logins locked out`,
  );
  if (summary.events.size > 0) out.push(`Events: ${[...summary.events].map(([k, v]) => `${k} ${fixed(v)}`).join(", ")}`);
  const worst = worstShapes(summary);
  if (worst.length > 0) {
    out.push("Index advisor: filter shapes reading most per row returned (add the index to the model's `static indexes`)");
    for (const f of worst) {
      out.push(`  ${f.model}: ${f.shape}  ${fixed(itemsPerRow(f))} items read per row (${f.itemsRead} items, ${f.rowsReturned} rows, ${f.listings} pages)`);
      out.push(
        `    ${f.advice ? f.advice.replace(/^(\{.*\})(.*)$/, "indexes: [$1]$2") : "no index serves this shape (OR, NOT or a leading % in LIKE): narrow the filter"}`,
      );
    }
  }
  return out.join("\n");
}
