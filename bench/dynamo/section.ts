import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import type { Figures } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { enableTestUser } from "../warm/section.ts";
import { accountOperations } from "./operations.ts";

/**
 * The fewest calls each operation can make: the floor the counts are read against. A list with
 * relations: the listing, one batched read per related model, the join rows. A patch: the read
 * its permission check needs (the policy is code, not a condition expression), then the write.
 */
const FLOOR: Record<string, number> = { get: 1, query: 1, list: 4, create: 1, patch: 2 };

/** Calls and consumed capacity per operation on DynamoDB Local (started here, stopped after). */
export async function dynamoSection(figures: Figures, _options: RunOptions): Promise<void> {
  progress("DynamoDB accounting: starting DynamoDB Local");
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  enableTestUser();
  const db = await startDynamoDbLocal();
  try {
    const results = await accountOperations(db.endpoint, `bench-${process.pid}-`);
    for (const r of results) {
      const key = r.operation.split(" ")[0] ?? "";
      const floor = FLOOR[key];
      figures.add({
        section: "DynamoDB calls",
        measure: r.operation,
        unit: "calls",
        higherIsBetter: false,
        ours: { name: "ours", summary: summarise([r.calls.length]) },
        ...(floor ? { floor: { name: "minimum", summary: summarise([floor]) } } : {}),
        note: `status ${r.status}; ${Object.entries(r.counts).map(([c, n]) => `${c} x${n}`).join(", ")}; ${r.capacity} capacity units consumed`,
      });
    }
    figures.detail("DynamoDB calls per operation (DynamoDB Local, ReturnConsumedCapacity TOTAL)", results.map((r) => `${r.operation.padEnd(56)} status ${r.status}  ${JSON.stringify(r.counts)}  ${r.capacity} CU`));
  } finally {
    await db.stop();
  }
}
