/**
 * A reader of CloudWatch embedded-metric-format lines that checks what the specification asks
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html)
 * and throws naming the first rule a line breaks: the `_aws` member with an integer millisecond
 * Timestamp and a non-empty CloudWatchMetrics array; each directive a Namespace (1-255 chars),
 * Dimensions (arrays of at most 30 keys, each a root member holding a string) and Metrics (at most
 * 100, each a Name that is a root member holding a number, and a Unit CloudWatch knows).
 */
const UNITS = new Set([
  "Seconds",
  "Microseconds",
  "Milliseconds",
  "Bytes",
  "Kilobytes",
  "Megabytes",
  "Gigabytes",
  "Terabytes",
  "Bits",
  "Kilobits",
  "Megabits",
  "Gigabits",
  "Terabits",
  "Percent",
  "Count",
  "Bytes/Second",
  "Kilobytes/Second",
  "Megabytes/Second",
  "Gigabytes/Second",
  "Terabytes/Second",
  "Bits/Second",
  "Kilobits/Second",
  "Megabits/Second",
  "Gigabits/Second",
  "Terabits/Second",
  "Count/Second",
  "None",
]);

export interface EmfDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}
export type EmfLine = Record<string, unknown> & { _aws: { Timestamp: number; CloudWatchMetrics: EmfDirective[] } };

function fail(rule: string, line: string): never {
  throw new Error(`not an EMF line (${rule}): ${line}`);
}

export function parseEmf(line: string): EmfLine {
  const root = JSON.parse(line) as Record<string, unknown>;
  const aws = root._aws as { Timestamp?: unknown; CloudWatchMetrics?: unknown } | undefined;
  if (typeof aws !== "object" || aws === null) fail("no _aws object", line);
  if (!Number.isInteger(aws.Timestamp) || (aws.Timestamp as number) < 0) fail("Timestamp is not an integer of milliseconds", line);
  if (!Array.isArray(aws.CloudWatchMetrics) || aws.CloudWatchMetrics.length === 0) fail("no CloudWatchMetrics directive", line);
  for (const directive of aws.CloudWatchMetrics as Partial<EmfDirective>[]) {
    if (typeof directive.Namespace !== "string" || directive.Namespace.length < 1 || directive.Namespace.length > 255) fail("Namespace", line);
    if (!Array.isArray(directive.Dimensions)) fail("Dimensions is not an array", line);
    for (const set of directive.Dimensions) {
      if (!Array.isArray(set) || set.length > 30) fail("a dimension set is not an array of at most 30 keys", line);
      for (const key of set) if (typeof root[key] !== "string") fail(`dimension ${key} has no string value at the root`, line);
    }
    if (!Array.isArray(directive.Metrics) || directive.Metrics.length > 100) fail("Metrics is not an array of at most 100", line);
    for (const metric of directive.Metrics) {
      if (typeof metric.Name !== "string" || metric.Name.length === 0) fail("a metric has no Name", line);
      if (typeof root[metric.Name] !== "number") fail(`metric ${metric.Name} has no number at the root`, line);
      if (metric.Unit !== undefined && !UNITS.has(metric.Unit)) fail(`unit ${metric.Unit}`, line);
    }
  }
  return root as EmfLine;
}

/** The dimension sets under which a line publishes a metric, as sorted `A,B` strings ("" for none). */
export function dimensionSetsOf(line: EmfLine, metric: string): string[] {
  return line._aws.CloudWatchMetrics.filter((d) => d.Metrics.some((m) => m.Name === metric)).flatMap((d) =>
    d.Dimensions.map((set) => [...set].sort().join(",")),
  );
}

export function unitOf(line: EmfLine, metric: string): string | undefined {
  return line._aws.CloudWatchMetrics.flatMap((d) => d.Metrics).find((m) => m.Name === metric)?.Unit;
}

/** The EMF lines `work` writes to stdout (as a Lambda does), parsed and checked. */
export async function emfLinesOf(work: () => Promise<unknown>): Promise<EmfLine[]> {
  return (await stdoutLinesOf(work)).filter((l) => l.startsWith('{"_aws"')).map(parseEmf);
}

/** Everything `work` writes to stdout, chunk by chunk, kept from the terminal. */
export async function stdoutLinesOf(work: () => Promise<unknown>): Promise<string[]> {
  const { vi } = await import("vitest");
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return lines;
}
