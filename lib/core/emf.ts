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
 * The line: `root` holds every metric value, dimension value and free property (request id,
 * trace id); every name a directive mentions must be a member of `root`.
 */
export function emfLine(namespace: string, timestamp: number, directives: readonly Directive[], root: Record<string, string | number | undefined>): string {
  const entries = directives.map((d) => {
    if (d.metrics.length > MAX_METRICS || d.dimensions.some((set) => set.length > MAX_DIMENSIONS)) throw new Error("EMF: too many metrics or dimensions in one directive");
    for (const name of [...d.metrics.map((m) => m.name), ...d.dimensions.flat()]) {
      if (root[name] === undefined) throw new Error(`EMF: ${name} is named by a directive but has no value`);
    }
    return { Namespace: namespace, Dimensions: d.dimensions, Metrics: d.metrics.map((m) => ({ Name: m.name, Unit: m.unit })) };
  });
  return JSON.stringify({ _aws: { Timestamp: timestamp, CloudWatchMetrics: entries }, ...root });
}
