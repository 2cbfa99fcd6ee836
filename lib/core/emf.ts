/**
 * CloudWatch's embedded metric format (EMF): a JSON log line whose `_aws` member tells CloudWatch
 * Logs which of the line's root members are metrics, in which namespace and under which dimension
 * sets. CloudWatch extracts the metrics from the log line itself: no PutMetricData call, nothing
 * on the request's path but building one string.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */
export type Unit = "Count" | "Milliseconds" | "None";

/** One `CloudWatchMetrics` entry: metrics (root members) published under each dimension set. */
export interface Directive {
  /** Each set lists root members whose values become dimensions; `[]` publishes without any. */
  dimensions: readonly (readonly string[])[];
  metrics: readonly { name: string; unit: Unit }[];
}

/** At most 30 dimensions per set and 100 metrics per directive (the specification's limits). */
const MAX_DIMENSIONS = 30;
const MAX_METRICS = 100;

/**
 * The `CloudWatchMetrics` array as JSON, checked against the root members the line will hold:
 * every name a directive mentions must be one of them, or CloudWatch drops the metric silently.
 */
export function directivesJson(namespace: string, directives: readonly Directive[], has: (member: string) => boolean): string {
  return JSON.stringify(
    directives.map((d) => {
      if (d.metrics.length > MAX_METRICS || d.dimensions.some((set) => set.length > MAX_DIMENSIONS))
        throw new Error("EMF: too many metrics or dimensions in one directive");
      for (const name of [...d.metrics.map((m) => m.name), ...d.dimensions.flat()]) {
        if (!has(name)) throw new Error(`EMF: ${name} is named by a directive but has no value`);
      }
      return { Namespace: namespace, Dimensions: d.dimensions, Metrics: d.metrics.map((m) => ({ Name: m.name, Unit: m.unit })) };
    }),
  );
}

/** A line from its parts: `members` is the root's members as JSON text without braces (`"a":1,"b":"x"`). */
export function emfText(timestamp: number, head: string, members: string): string {
  return `{"_aws":{"Timestamp":${Math.trunc(timestamp)},"CloudWatchMetrics":${head}}${members ? `,${members}` : ""}}`;
}

/** The line: `root` holds every metric value, dimension value and free property (request id, trace id). */
export function emfLine(namespace: string, timestamp: number, directives: readonly Directive[], root: Record<string, string | number | undefined>): string {
  const head = directivesJson(namespace, directives, (name) => root[name] !== undefined);
  return emfText(timestamp, head, JSON.stringify(root).slice(1, -1));
}
