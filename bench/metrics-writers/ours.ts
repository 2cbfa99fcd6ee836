import type { Invocation } from "../../lib/core/invocation.ts";
import { metricsSettings, writeMetricsLine, type MetricsSettings } from "../../lib/core/metrics.ts";

// The service's own EMF writer (lib/core/metrics.ts) publishing what an HTTP request publishes,
// from the invocation's tally, as endInvocation (lib/core/invocation-lifecycle.ts) does where the
// metrics are a line of their own: the same metric set as powertools.ts. Its settings are read as a function is built.
const settings = metricsSettings();

/** Begins the invocation as beginInvocation does: its tally afresh, the function's settings on it. */
export function begin(invocation: Invocation, requestId: string, own: MetricsSettings = settings): void {
  invocation.begin(requestId, undefined, Number.POSITIVE_INFINITY, own);
}

export function publish(invocation: Invocation, latencyMs: number): void {
  writeMetricsLine({ service: "rest", route: "GET /posts/{slug}", status: 200, latencyMs, requestId: invocation.requestId }, invocation);
}
