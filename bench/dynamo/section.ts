import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { barOn, type Figures } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { enableTestUser } from "../warm/section.ts";
import { accountOperations } from "./operations.ts";

/** Calls and consumed capacity per operation on DynamoDB Local (started here, stopped after). */
export async function dynamoSection(figures: Figures, _options: RunOptions): Promise<void> {
  progress("DynamoDB accounting: starting DynamoDB Local");
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  enableTestUser();
  const db = await startDynamoDbLocal();
  try {
    const results = await accountOperations(db.endpoint, `bench-${process.pid}-`);
    for (const r of results) {
      const ours = { name: "ours", summary: summarise([r.calls.length]) };
      const contains = r.operation.startsWith("list with contains");
      figures.add({
        section: "DynamoDB calls",
        measure: r.operation,
        unit: "calls",
        higherIsBetter: false,
        ours,
        // Not measured: the fewest calls the operation could make, computed (dynamo/minimum.ts).
        floor: { name: "minimum (computed)", summary: summarise([r.minimum.calls]) },
        // The issue's own bar for a contains relation over 50 parents; every other row: the minimum.
        bar: contains ? barOn("<= 1 + 2 calls", ours, 3, 1, true) : barOn("= minimum", ours, r.minimum.calls, 1, true),
        ...(r.problem ? { failed: r.problem } : {}),
        // What was sent is the measured cause when a row misses its bar.
        cause: `sent ${Object.entries(r.counts)
          .map(([c, n]) => `${c} x${n}`)
          .join(", ")} where the minimum is ${r.minimum.why}`,
        note: `status ${r.status}; ${Object.entries(r.counts)
          .map(([c, n]) => `${c} x${n}`)
          .join(", ")}; ${r.capacity} capacity units consumed; minimum: ${r.minimum.why}`,
      });
    }
    figures.detail(
      "DynamoDB calls per operation (DynamoDB Local, ReturnConsumedCapacity TOTAL)",
      results.map(
        (r) => `${r.operation.padEnd(56)} status ${r.status}  ${JSON.stringify(r.counts)}  ${r.capacity} CU  (minimum ${r.minimum.calls}: ${r.minimum.why})`,
      ),
    );
  } finally {
    await db.stop();
  }
}
