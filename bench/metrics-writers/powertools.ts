import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { Invocation } from "../../lib/core/invocation.ts";

// Powertools for AWS Lambda's Metrics publishing the same metrics as our writer (ours.ts), from the
// same tally: Requests and Latency per Service, Route and StatusClass; Requests, Latency and the
// DynamoDB figures per Service and without dimensions. Powertools puts one dimension list on all
// the metrics of a line, so the two metric sets are two lines; its default `service` dimension is
// cleared so that the dimension names stay ours.
const metrics = new Metrics({ namespace: process.env.METRICS_NAMESPACE || "modelrest" });
metrics.clearDefaultDimensions();

export function begin(invocation: Invocation, requestId: string): void {
  invocation.begin(requestId, undefined, Number.POSITIVE_INFINITY);
}

export function publish(invocation: Invocation, latencyMs: number): void {
  metrics.addDimensions({ Service: "rest", Route: "GET /posts/{slug}", StatusClass: "2xx" });
  metrics.addMetric("Requests", MetricUnit.Count, 1);
  metrics.addMetric("Latency", MetricUnit.Milliseconds, latencyMs);
  metrics.publishStoredMetrics();
  metrics.addDimensions({ Service: "rest" });
  metrics.addDimensions({});
  metrics.addMetric("Requests", MetricUnit.Count, 1);
  metrics.addMetric("Latency", MetricUnit.Milliseconds, latencyMs);
  metrics.addMetric("DynamoDBCalls", MetricUnit.Count, invocation.dynamoCalls);
  metrics.addMetric("DynamoDBReadUnits", MetricUnit.Count, invocation.readUnits);
  metrics.addMetric("DynamoDBWriteUnits", MetricUnit.Count, invocation.writeUnits);
  metrics.addMetric("DynamoDBThrottles", MetricUnit.Count, invocation.throttles);
  if (invocation.requestId !== undefined) metrics.addMetadata("requestId", invocation.requestId);
  metrics.addMetadata("status", "200");
  metrics.publishStoredMetrics();
}
