import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { currentInvocation, runInvocation } from "../../lib/core/invocation.ts";
import { countDynamoDBCall, metricsSettings } from "../../lib/core/metrics.ts";
import * as ours from "../../bench/metrics-writers/ours.ts";
import type * as Powertools from "../../bench/metrics-writers/powertools.ts";
import { ruleOf } from "../../bench/metrics-writers/rule.ts";
import { parseEmf } from "../support/emf.ts";

afterEach(() => vi.restoreAllMocks());

type PowertoolsWriter = typeof Powertools;
let powertools: PowertoolsWriter;
// Powertools' commons names itself in AWS_SDK_UA_APP_ID as it is first imported (the user agent of
// every SDK client built after): imported here, once the value before it is noted, and that value
// put back after the file, for the files after it in the worker.
const appIdBefore = process.env.AWS_SDK_UA_APP_ID;
beforeAll(async () => {
  powertools = await import("../../bench/metrics-writers/powertools.ts");
});
afterAll(() => {
  if (appIdBefore === undefined) delete process.env.AWS_SDK_UA_APP_ID;
  else process.env.AWS_SDK_UA_APP_ID = appIdBefore;
});

/** Every datapoint the lines publish: namespace, metric, unit and dimension values, with its value. */
function datapoints(lines: string[]): Map<string, unknown> {
  const points = new Map<string, unknown>();
  for (const text of lines) {
    const line = parseEmf(text);
    for (const directive of line._aws.CloudWatchMetrics) {
      for (const metric of directive.Metrics) {
        for (const set of directive.Dimensions) {
          const key = `${directive.Namespace} ${metric.Name} ${metric.Unit} {${set.map((d) => `${d}=${String(line[d])}`).join(",")}}`;
          expect(points.has(key), `${key} published twice`).toBe(false);
          points.set(key, line[metric.Name]);
        }
      }
    }
  }
  return points;
}

/**
 * What a writer publishes for one request with one DynamoDB call, its lines taken from stdout; in
 * an invocation of its own, so nothing is left on the process's ambient one.
 */
async function published(writer: typeof ours | PowertoolsWriter): Promise<Map<string, unknown>> {
  const lines: string[] = [];
  await runInvocation(async () => record(writer, lines));
  return datapoints(lines.map((l) => l.trim()));
}

function record(writer: typeof ours | PowertoolsWriter, lines: string[]): void {
  const invocation = currentInvocation();
  // To stdout, as in Lambda: this settings' METRICS_FILE is not the test run's /dev/null.
  if (writer === ours) ours.begin(invocation, "req-1", metricsSettings({ METRICS_NAMESPACE: "modelrest" }));
  else writer.begin(invocation, "req-1");
  countDynamoDBCall(0.5, 0, 1);
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
  try {
    writer.publish(invocation, 1.25);
  } finally {
    write.mockRestore();
  }
}

describe("the metrics writers the bench compares (bench/metrics-writers)", () => {
  it("publish the same datapoints: same metrics, units, dimension sets and values", async () => {
    const mine = await published(ours);
    expect(mine.get("modelrest Latency Milliseconds {Service=rest,Route=GET /posts/{slug},StatusClass=2xx}")).toBe(1.25);
    expect(mine.get("modelrest DynamoDBReadUnits Count {}")).toBe(0.5);
    expect(mine.size).toBe(14);
    expect(await published(powertools)).toEqual(mine);
  });

  it("the rule picks Powertools only when timed and counted both keep it within 2 ms", () => {
    expect(ruleOf(1.9, 1.5).picks).toBe("powertools");
    expect(ruleOf(2.1, 2.5).picks).toBe("ours");
    expect(ruleOf(1.5, 2.5).picks).toBe("undecided");
    expect(ruleOf(2.5, undefined).picks).toBe("ours");
  });
});
